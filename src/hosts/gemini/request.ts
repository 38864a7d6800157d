import { ownString, ownValue as own } from '../../lib/own-property.js';
import { isPlainObject } from '../../policy/equal.js';
import { type CallIds, hookMeta, hostRuntimeEvent } from '../../protocol/hook-meta.js';
import { type CallMethod, Method } from '../../protocol/methods.js';
import type { CommandHostRequest, CommandRequestOptions } from '../command/host.js';

/**
 * Gemini CLI command-hook stdin → one hook call, as captured from Gemini CLI 0.61.0
 * (test/fixtures/gemini/): `{session_id, transcript_path, cwd, hook_event_name, timestamp,
 * tool_name, tool_input}`, AfterTool adding `tool_response {llmContent, returnDisplay}`. The shell
 * tool is `run_shell_command` with `{command, description}`.
 */
export const CALL_EVENTS = {
  BeforeTool: Method.BeforeTool,
  AfterTool: Method.AfterTool,
} as const satisfies Record<string, CallMethod>;

function idsOf(body: Record<string, unknown>): CallIds {
  return { source: 'gemini', sessionKey: ownString(body, 'session_id') };
}

export function toHookRequest(body: unknown, opts: CommandRequestOptions): CommandHostRequest {
  if (!isPlainObject(body)) return { kind: 'invalid', why: 'body is not a JSON object' };
  const event = own(body, 'hook_event_name');
  if (typeof event !== 'string' || event === '')
    return { kind: 'invalid', why: 'hook_event_name is missing' };
  if (!Object.hasOwn(CALL_EVENTS, event)) {
    // BeforeModel, BeforeAgent, Notification, …: observers only (text withheld unless granted).
    return { kind: 'event', event, params: hostRuntimeEvent(event, idsOf(body), body, opts) };
  }
  const name = own(body, 'tool_name');
  if (typeof name !== 'string' || name === '') return { kind: 'invalid', why: 'tool_name is missing' };
  const input = own(body, 'tool_input');
  if (input !== undefined && input !== null && !isPlainObject(input))
    return { kind: 'invalid', why: 'tool_input is not an object' };
  const toolInput = isPlainObject(input) ? input : {};
  if (event === 'BeforeTool')
    return {
      kind: 'call',
      event,
      method: Method.BeforeTool,
      params: { meta: hookMeta(idsOf(body), 'turn.tool.before'), tool: name, arguments: toolInput },
      toolInput,
    };
  const response = own(body, 'tool_response');
  const text = isPlainObject(response) ? own(response, 'llmContent') : response;
  return {
    kind: 'call',
    event,
    method: Method.AfterTool,
    params: {
      meta: hookMeta(idsOf(body), 'turn.tool.after'),
      tool: name,
      arguments: toolInput,
      result: {
        for_llm: typeof text === 'string' ? text : JSON.stringify(text ?? null),
        silent: false,
        is_error: false,
        async: false,
      },
      duration: 0,
    },
    toolInput,
  };
}
