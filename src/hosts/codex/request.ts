import { ownString, ownValue as own } from '../../lib/own-property.js';
import { isPlainObject } from '../../policy/equal.js';
import { type CallIds, hookMeta, hostRuntimeEvent } from '../../protocol/hook-meta.js';
import { type CallMethod, Method } from '../../protocol/methods.js';
import type { CommandHostRequest, CommandRequestOptions } from '../command/host.js';
import { bareToolName } from '../shared/mcp-tool-name.js';

/**
 * Codex command-hook stdin → one hook call. Codex writes Claude Code's shape (`hook_event_name`,
 * `tool_name`, `tool_input`, `tool_use_id`, `session_id`, `turn_id`), as captured from Codex
 * 0.169.0 (test/fixtures/codex/). Its shell tool `exec_command` arrives as `Bash` with
 * `{command}`; PostToolUse adds `tool_response`, the command's output as a string.
 */
export const CALL_EVENTS = {
  PreToolUse: Method.BeforeTool,
  PermissionRequest: Method.ApproveTool,
  PostToolUse: Method.AfterTool,
} as const satisfies Record<string, CallMethod>;

const TRACE: Record<keyof typeof CALL_EVENTS, string> = {
  PreToolUse: 'turn.tool.before',
  PermissionRequest: 'turn.tool.approve',
  PostToolUse: 'turn.tool.after',
};

function idsOf(body: Record<string, unknown>): CallIds {
  return { source: 'codex', turnId: ownString(body, 'turn_id'), sessionKey: ownString(body, 'session_id') };
}

export function toHookRequest(body: unknown, opts: CommandRequestOptions): CommandHostRequest {
  if (!isPlainObject(body)) return { kind: 'invalid', why: 'body is not a JSON object' };
  const event = own(body, 'hook_event_name');
  if (typeof event !== 'string' || event === '')
    return { kind: 'invalid', why: 'hook_event_name is missing' };
  if (!Object.hasOwn(CALL_EVENTS, event)) {
    // SessionStart, UserPromptSubmit, Stop, …: observers only (their text withheld unless granted).
    return { kind: 'event', event, params: hostRuntimeEvent(event, idsOf(body), body, opts) };
  }
  const callEvent = event as keyof typeof CALL_EVENTS;
  const name = own(body, 'tool_name');
  if (typeof name !== 'string' || name === '') return { kind: 'invalid', why: 'tool_name is missing' };
  const input = own(body, 'tool_input');
  if (input !== undefined && input !== null && !isPlainObject(input))
    return { kind: 'invalid', why: 'tool_input is not an object' };
  const toolInput = isPlainObject(input) ? input : {};
  const params: Record<string, unknown> = {
    meta: hookMeta(idsOf(body), TRACE[callEvent]),
    tool: bareToolName(name, opts.ownMcpServer),
    arguments: toolInput,
  };
  if (callEvent === 'PostToolUse') {
    const response = own(body, 'tool_response');
    const text = typeof response === 'string' ? response : JSON.stringify(response ?? null);
    params.result = { for_llm: text, silent: false, is_error: false, async: false };
    params.duration = 0;
  }
  return { kind: 'call', event: callEvent, method: CALL_EVENTS[callEvent], params, toolInput };
}
