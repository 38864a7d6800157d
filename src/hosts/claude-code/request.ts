import { ownString, ownValue as own } from '../../lib/own-property.js';
import { type CallIds, hookMeta, hostRuntimeEvent } from '../../protocol/hook-meta.js';
import { isPlainObject } from '../../policy/equal.js';
import { type CallMethod, Method } from '../../protocol/methods.js';
import { toToolResult } from './tool-output.js';
import { bareToolName } from '../shared/mcp-tool-name.js';

/**
 * Claude Code HTTP-hook body → one hook call on the PicoClaw methods. Pure: the caller passes the
 * request id and the clock. The event is `hook_event_name` in the body (Claude Code sends no event
 * header); the shapes are those captured from Claude Code 2.1.328 (see docs/hosts/claude-code.md).
 */

/** The events that become a call; every other event is a runtime event for observers. */
export const CALL_EVENTS = {
  PreToolUse: Method.BeforeTool,
  PermissionRequest: Method.ApproveTool,
  PostToolUse: Method.AfterTool,
  UserPromptSubmit: Method.BeforeLlm,
} as const satisfies Record<string, CallMethod>;

export type CallEvent = keyof typeof CALL_EVENTS;

export type HookRequest =
  | {
      kind: 'call';
      event: CallEvent;
      method: CallMethod;
      params: Record<string, unknown>;
      /** The tool input as Claude Code sent it (PreToolUse/PostToolUse), to complete a rewrite. */
      toolInput?: Record<string, unknown>;
      /** The tool's own output (PostToolUse), whose shape a result rewrite keeps. */
      toolResponse?: unknown;
    }
  | { kind: 'event'; event: string; params: Record<string, unknown> }
  | { kind: 'invalid'; why: string };

export interface RequestOptions {
  /** Becomes the runtime event's id. */
  requestId: string;
  /** ISO time for the runtime event. */
  now: string;
  /**
   * The name this hook's own MCP route is registered under in Claude Code (`mcp__<server>__<tool>`);
   * its tools are matched by their bare names, as the hook declares them.
   */
  ownMcpServer?: string;
}

/** Claude Code's session and prompt ids, in PicoClaw's terms (HookMeta, runtime event scope). */
function idsOf(body: Record<string, unknown>): CallIds {
  return {
    source: 'claude-code',
    agentId: ownString(body, 'agent_id'),
    turnId: ownString(body, 'prompt_id'),
    sessionKey: ownString(body, 'session_id'),
  };
}

const meta = (body: Record<string, unknown>, tracePath: string) => hookMeta(idsOf(body), tracePath);

/** Claude Code names MCP tools `mcp__<server>__<tool>`; the hook's own server's tools by bare name. */
export const toolName = bareToolName;

export function toHookRequest(body: unknown, opts: RequestOptions): HookRequest {
  if (!isPlainObject(body)) return { kind: 'invalid', why: 'body is not a JSON object' };
  const event = own(body, 'hook_event_name');
  if (typeof event !== 'string' || event === '') {
    return { kind: 'invalid', why: 'hook_event_name is missing' };
  }
  if (!Object.hasOwn(CALL_EVENTS, event))
    return { kind: 'event', event, params: runtimeEvent(event, body, opts) };
  const callEvent = event as CallEvent;
  const method = CALL_EVENTS[callEvent];
  if (callEvent === 'UserPromptSubmit') {
    // The nearest PicoClaw step: the request about to go to the model with the user's prompt.
    // Minimisation withholds the text unless the hook has conversation_access.
    return {
      kind: 'call',
      event: callEvent,
      method,
      params: {
        meta: meta(body, 'turn.llm.request'),
        model: '',
        messages: [{ role: 'user', content: ownString(body, 'prompt') }],
      },
    };
  }
  const name = own(body, 'tool_name');
  if (typeof name !== 'string' || name === '') return { kind: 'invalid', why: 'tool_name is missing' };
  const input = own(body, 'tool_input');
  if (input !== undefined && input !== null && !isPlainObject(input)) {
    return { kind: 'invalid', why: 'tool_input is not an object' };
  }
  const toolInput = isPlainObject(input) ? input : {};
  const tracePath =
    callEvent === 'PreToolUse'
      ? 'turn.tool.before'
      : callEvent === 'PermissionRequest'
        ? 'turn.tool.approve'
        : 'turn.tool.after';
  const params: Record<string, unknown> = {
    meta: meta(body, tracePath),
    // opts.ownMcpServer is read only for an MCP tool (the route computes it on demand).
    tool: name.startsWith('mcp__') ? toolName(name, opts.ownMcpServer) : name,
    arguments: toolInput,
  };
  if (callEvent !== 'PostToolUse') return { kind: 'call', event: callEvent, method, params, toolInput };
  const toolResponse = own(body, 'tool_response');
  params.result = toToolResult(toolResponse);
  const ms = own(body, 'duration_ms');
  // PicoClaw's after_tool duration is in nanoseconds.
  params.duration = typeof ms === 'number' && Number.isFinite(ms) ? Math.round(ms * 1e6) : 0;
  return { kind: 'call', event: callEvent, method, params, toolInput, toolResponse };
}

/** Every other event, as a runtime event (prompts, Stop's last_assistant_message, … withheld unless granted). */
function runtimeEvent(event: string, body: Record<string, unknown>, opts: RequestOptions) {
  return hostRuntimeEvent(event, { ...idsOf(body), name: ownString(body, 'agent_type') }, body, opts);
}
