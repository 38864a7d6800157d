import type { CommandHostCall } from '../command/host.js';
import { approvalReason, approvedBy, toolVerdict } from '../command/tool-verdict.js';

/**
 * Policy-checked answer → what the shim prints for Copilot CLI. Pure; the grants are applied.
 *
 * - A block is `permissionDecision: "deny"` with the reason (the model reads `Denied by preToolUse
 *   hook: <reason>`).
 * - A rewrite is `modifiedArgs`, the complete arguments (rewrite_tools), with no decision.
 * - `allow` skips Copilot's own permission check (a command that writes runs headless): it comes
 *   only from the hook's approve_tool answering `approved: true` for a tool in approve_tools.
 * - A refused approval is no verdict (see below). "No objection" is `{}`, printed as nothing.
 */
export function toHostAnswer(
  request: CommandHostCall,
  answer: Record<string, unknown>,
  approval?: Record<string, unknown>,
): Record<string, unknown> {
  // postToolUse: Copilot takes no new result from a hook; nothing to carry.
  if (request.event !== 'preToolUse') return {};
  const verdict = toolVerdict('Copilot', request.params.tool, request.toolInput, answer);
  if (verdict.kind === 'block')
    return { permissionDecision: 'deny', permissionDecisionReason: verdict.reason };
  // A gateway rule's ask: Copilot's own (headless, with nobody to ask, it denies).
  if (verdict.kind === 'ask') return { permissionDecision: 'ask', permissionDecisionReason: verdict.reason };
  const out: Record<string, unknown> = {};
  // Only `approved: true` is carried. preToolUse runs for every call, also those Copilot lets run
  // by itself, so a refused approval is no verdict (Copilot's own check decides, and refuses
  // headless what needs approval); blocking a call is before_tool's deny.
  if (approvedBy(approval) === true) {
    out.permissionDecision = 'allow';
    const why = approvalReason(approval);
    if (why !== undefined) out.permissionDecisionReason = why;
  }
  if (verdict.kind === 'rewrite') out.modifiedArgs = verdict.input;
  return out;
}
