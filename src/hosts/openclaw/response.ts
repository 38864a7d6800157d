import { fillBack, isPlainObject, jsonEqual } from '../../policy/equal.js';
import { readToolAnswer } from '../../protocol/tool-answer.js';
import type { HookRequest } from './request.js';

/**
 * Policy-checked PicoClaw answer → the result an OpenClaw hook handler returns. Pure. The answer
 * has already passed the gateway's grants, so this only changes shape. Only before_tool_call can
 * decide anything in OpenClaw: `{block: true, blockReason}` (the reason is the tool message the
 * model reads) or `{params}` (replaces the tool's params, so always complete). Every other hook is
 * observe-only in OpenClaw, and gets `{}` (no objection).
 *
 * OpenClaw has no verdict that skips its own approvals (exec approvals, sandbox and owner-only
 * policies still apply after a hook), so nothing here ever grants.
 */
export function toHostAnswer(
  request: Extract<HookRequest, { kind: 'call' }>,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  if (request.hook !== 'before_tool_call') return {};
  const action = typeof answer.action === 'string' ? answer.action : 'continue';
  const reason = typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : undefined;
  switch (action) {
    case 'deny_tool':
      return block(reason ?? 'denied by hook');
    case 'abort_turn':
    case 'hard_abort':
      // A run cannot be stopped from a tool hook: refusing the tool is the nearest.
      return block(reason ?? 'turn stopped by hook');
    case 'respond': {
      // OpenClaw cannot take a result without running the tool; a block's reason is exactly the
      // tool message the model reads (captured exchange 01), so the result text goes there.
      const result = isPlainObject(answer.result) ? answer.result : undefined;
      return block(typeof result?.for_llm === 'string' ? result.for_llm : (reason ?? ''));
    }
  }
  const call = isPlainObject(answer.call) ? answer.call : undefined;
  if (!call) return {};
  if (call.tool !== request.params.tool) {
    // OpenClaw cannot rename a call; running the old tool with the new tool's params would be
    // neither what the model nor what the hook asked for.
    return block(`hookgate: OpenClaw cannot redirect "${request.params.tool}" to "${String(call.tool)}"`);
  }
  const original = request.toolParams ?? {};
  const changed = isPlainObject(call.arguments) ? call.arguments : original;
  // OpenClaw replaces params: every key of the original, with only the granted changes.
  const params = fillBack(original, original, changed);
  if (jsonEqual(params, original)) return {};
  return { params };
}

/**
 * An approve_tool answer (asked after before_tool when the hook has the approve mode) → a block,
 * or undefined when the call may go on. `approved: true` grants nothing in OpenClaw: its own
 * approvals still apply.
 */
export function approvalAnswer(answer: Record<string, unknown>): Record<string, unknown> | undefined {
  if (answer.approved === true) return undefined;
  const reason = typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : 'denied by hook';
  return block(reason);
}

function block(blockReason: string): Record<string, unknown> {
  return { block: true, blockReason };
}

/** OpenClaw's AgentToolResult: what a plugin tool's execute returns. */
export interface OpenClawToolResult {
  content: { type: 'text'; text: string }[];
  details: Record<string, unknown>;
}

/**
 * A hook's before_tool answer for one of its own tools (after policy) → the result the plugin
 * tool's execute returns: `respond`'s `for_llm` is the text the model reads; anything else is an
 * error result saying why (src/protocol/tool-answer.ts). `details` carries the outcome in the
 * fields OpenClaw grades a call by (`ok`, `error`), and the result's media refs, which in PicoClaw
 * go to the user rather than the model.
 */
export function toToolResult(
  hook: string,
  tool: string,
  answer: Record<string, unknown>,
  failure?: string,
): OpenClawToolResult {
  const read = readToolAnswer(hook, tool, answer, failure);
  if (read.kind === 'error') return errorResult(read.message);
  if (read.isError) return errorResult(read.text);
  const details: Record<string, unknown> = { ok: true };
  if (read.media.length > 0) details.media = read.media;
  return { content: [{ type: 'text', text: read.text }], details };
}

/** An error result: the model reads `message`, OpenClaw records the call as failed. */
export function errorResult(message: string): OpenClawToolResult {
  return { content: [{ type: 'text', text: message }], details: { ok: false, error: message } };
}
