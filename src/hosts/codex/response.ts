import type { CommandHostCall } from '../command/host.js';
import { approvalReason, approvedBy, toolVerdict } from '../command/tool-verdict.js';

/**
 * Policy-checked answer → what the shim prints for Codex. Pure; the grants are already applied.
 *
 * - "No objection" is `{}`, printed as nothing: Codex records an `allow` without `updatedInput`
 *   (and an `ask`) as a failed hook, and runs the tool.
 * - A rewrite is `allow` + `updatedInput`: Codex ignores `updatedInput` without `allow`. It needed
 *   rewrite_tools to get here; it skips nothing in `codex exec`, whose approval is already off.
 * - PermissionRequest `behavior: "allow"` skips Codex's approval: it comes only from
 *   `approved: true` for a tool in approve_tools (the gateway turns any other into no verdict).
 */
export function toHostAnswer(
  request: CommandHostCall,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  if (request.event === 'PermissionRequest') {
    const approved = approvedBy(answer);
    if (approved === undefined) return {};
    const decision = approved
      ? { behavior: 'allow' }
      : { behavior: 'deny', message: approvalReason(answer) ?? 'denied by hook' };
    return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
  }
  // PostToolUse: Codex cannot take a new result from a command hook; nothing to carry.
  if (request.event !== 'PreToolUse') return {};
  const verdict = toolVerdict('Codex', request.params.tool, request.toolInput, answer);
  // Codex has no ask for a hook (its `ask` is recorded as a failed hook and the tool runs): a
  // rule's ask is no verdict, so Codex's own approval policy decides.
  if (verdict.kind === 'none' || verdict.kind === 'ask') return {};
  if (verdict.kind === 'block')
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: verdict.reason,
      },
    };
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: verdict.reason ?? 'rewritten by hook',
      updatedInput: verdict.input,
    },
  };
}
