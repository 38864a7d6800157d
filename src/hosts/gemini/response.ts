import type { CommandHostCall } from '../command/host.js';
import { toolVerdict } from '../command/tool-verdict.js';

/**
 * Policy-checked answer → what the shim prints for Gemini CLI. Pure; the grants are applied.
 *
 * - A block is `decision: "deny"` with the reason (the model reads `Tool execution blocked: …`).
 * - A rewrite is `hookSpecificOutput.tool_input`, which replaces all the arguments: the complete
 *   input goes (rewrite_tools).
 * - Never `allow`: on the real Gemini CLI 0.61.0 a hook's allow skips nothing (its scheduler reads
 *   block, stop, ask and a rewrite from BeforeTool; the confirmation still shows; see
 *   docs/hosts/gemini.md). `ask` only for a gateway rule's ask: Gemini's own, which ends a
 *   headless run without running the tool.
 *   "No objection" is `{}`, printed as nothing.
 */
export function toHostAnswer(
  request: CommandHostCall,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  // AfterTool: a command hook can only add context there; nothing the hook's answer carries.
  if (request.event !== 'BeforeTool') return {};
  const verdict = toolVerdict('Gemini CLI', request.params.tool, request.toolInput, answer);
  if (verdict.kind === 'none') return {};
  if (verdict.kind === 'block') return { decision: 'deny', reason: verdict.reason };
  if (verdict.kind === 'ask') return { decision: 'ask', reason: verdict.reason };
  return { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: verdict.input } };
}
