import { ownString, ownValue as own } from '../../lib/own-property.js';
import { isPlainObject } from '../../policy/equal.js';
import { type CallIds, hookMeta } from '../../protocol/hook-meta.js';
import { Method } from '../../protocol/methods.js';
import type { CommandHostRequest, CommandRequestOptions } from '../command/host.js';

/**
 * Copilot CLI command-hook stdin → one hook call, as captured from Copilot 1.0.102
 * (test/fixtures/copilot/): `{sessionId, timestamp, cwd, toolName, toolArgs}` for preToolUse, plus
 * `toolResult {resultType, textResultForLlm}` for postToolUse. The stdin names no event, so the
 * event is told by `toolResult`. The shell tool is `bash` with `{command}`.
 */

function idsOf(body: Record<string, unknown>): CallIds {
  return { source: 'copilot', sessionKey: ownString(body, 'sessionId') };
}

export function toHookRequest(body: unknown, _opts: CommandRequestOptions): CommandHostRequest {
  if (!isPlainObject(body)) return { kind: 'invalid', why: 'body is not a JSON object' };
  const name = own(body, 'toolName');
  if (typeof name !== 'string' || name === '')
    return { kind: 'invalid', why: 'toolName is missing (only preToolUse and postToolUse are taken)' };
  const args = own(body, 'toolArgs');
  if (args !== undefined && args !== null && !isPlainObject(args))
    return { kind: 'invalid', why: 'toolArgs is not an object' };
  const toolInput = isPlainObject(args) ? args : {};
  const result = own(body, 'toolResult');
  if (result === undefined) {
    return {
      kind: 'call',
      event: 'preToolUse',
      method: Method.BeforeTool,
      params: { meta: hookMeta(idsOf(body), 'turn.tool.before'), tool: name, arguments: toolInput },
      toolInput,
      // preToolUse `allow` skips Copilot's own permission check.
      alsoApproves: true,
    };
  }
  if (!isPlainObject(result)) return { kind: 'invalid', why: 'toolResult is not an object' };
  const text = own(result, 'textResultForLlm');
  return {
    kind: 'call',
    event: 'postToolUse',
    method: Method.AfterTool,
    params: {
      meta: hookMeta(idsOf(body), 'turn.tool.after'),
      tool: name,
      arguments: toolInput,
      result: {
        for_llm: typeof text === 'string' ? text : '',
        silent: false,
        is_error: own(result, 'resultType') === 'failure',
        async: false,
      },
      duration: 0,
    },
    toolInput,
  };
}
