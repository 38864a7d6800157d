import { ownString, ownValue as own } from '../../lib/own-property.js';
import { type CallIds, hookMeta, hostRuntimeEvent } from '../../protocol/hook-meta.js';
import { isPlainObject } from '../../policy/equal.js';
import { type CallMethod, Method } from '../../protocol/methods.js';
import { bareToolName } from '../shared/mcp-tool-name.js';

/**
 * Hermes shell-hook payload → one hook call on the PicoClaw methods. Pure: the caller passes the
 * request id and the clock. Hermes writes `{hook_event_name, tool_name, tool_input, session_id,
 * cwd, extra}` for every event, `extra` holding the event's other arguments (docs/hosts/hermes.md).
 */

/** The events that become a call; every other event is a runtime event for observers. */
export const CALL_EVENTS = {
  pre_tool_call: Method.BeforeTool,
  post_tool_call: Method.AfterTool,
  pre_llm_call: Method.BeforeLlm,
} as const satisfies Record<string, CallMethod>;

export type CallEvent = keyof typeof CALL_EVENTS;

export type HookRequest =
  | {
      kind: 'call';
      event: CallEvent;
      method: CallMethod;
      params: Record<string, unknown>;
      /** The tool's arguments as Hermes sent them, to complete a rewrite. */
      toolInput?: Record<string, unknown>;
    }
  | { kind: 'event'; event: string; params: Record<string, unknown> }
  | { kind: 'invalid'; why: string };

export interface RequestOptions {
  /** Becomes the runtime event's id. */
  requestId: string;
  /** ISO time for the runtime event. */
  now: string;
  /**
   * The hook's own MCP server as Hermes names it (hermesMcpServerName): its tools arrive as
   * `mcp__<server>__<tool>` and are matched by their bare names, as the hook declares them.
   */
  ownMcpServer?: string;
  /** The hook's tools, to undo Hermes's cleaning of a bare name (`get-weather` → `get_weather`). */
  ownTools?: ReadonlySet<string>;
}

/** Hermes cleans each part of an MCP tool's name: anything outside [A-Za-z0-9_] becomes `_`. */
const hermesClean = (part: string) => part.replace(/[^A-Za-z0-9_]/g, '_');

/**
 * The server name hookgate gives a hook's MCP route in Hermes's `mcp_servers:` (what `hookgate
 * setup hermes` prints); Hermes offers its tools as `mcp__<this>__<tool>`.
 */
export function hermesMcpServerName(hook: string): string {
  return `hookgate_${hermesClean(hook)}`;
}

/** The tool's name as the hook knows it: a tool of its own MCP server by its bare name. */
function hookToolName(name: string, opts: RequestOptions): string {
  const bare = bareToolName(name, opts.ownMcpServer);
  if (bare === name || !opts.ownTools || opts.ownTools.has(bare)) return bare;
  // Hermes cleaned the hook's own name: the one tool of the hook that cleans to it, if only one.
  const named = [...opts.ownTools].filter((t) => hermesClean(t) === bare);
  return named.length === 1 ? named[0] : bare;
}

function extraOf(body: Record<string, unknown>): Record<string, unknown> {
  const extra = own(body, 'extra');
  return isPlainObject(extra) ? extra : {};
}

/** Hermes's session and turn ids, in PicoClaw's terms (HookMeta, runtime event scope). */
function idsOf(body: Record<string, unknown>): CallIds {
  return {
    source: 'hermes',
    turnId: ownString(extraOf(body), 'turn_id'),
    sessionKey: ownString(body, 'session_id'),
  };
}

const meta = (body: Record<string, unknown>, tracePath: string) => hookMeta(idsOf(body), tracePath);

export function toHookRequest(body: unknown, opts: RequestOptions): HookRequest {
  if (!isPlainObject(body)) return { kind: 'invalid', why: 'body is not a JSON object' };
  const event = own(body, 'hook_event_name');
  if (typeof event !== 'string' || event === '') {
    return { kind: 'invalid', why: 'hook_event_name is missing' };
  }
  const extra = own(body, 'extra');
  if (extra !== undefined && extra !== null && !isPlainObject(extra))
    return { kind: 'invalid', why: 'extra is not an object' };
  if (!Object.hasOwn(CALL_EVENTS, event))
    return { kind: 'event', event, params: runtimeEvent(event, body, opts) };
  const callEvent = event as CallEvent;
  const method = CALL_EVENTS[callEvent];
  if (callEvent === 'pre_llm_call') return llmCall(body);
  const name = own(body, 'tool_name');
  if (typeof name !== 'string' || name === '') return { kind: 'invalid', why: 'tool_name is missing' };
  const input = own(body, 'tool_input');
  // Hermes sends null when the tool's args are not a dict.
  if (input !== undefined && input !== null && !isPlainObject(input)) {
    return { kind: 'invalid', why: 'tool_input is not an object' };
  }
  const toolInput = isPlainObject(input) ? input : {};
  const params: Record<string, unknown> = {
    meta: meta(body, callEvent === 'pre_tool_call' ? 'turn.tool.before' : 'turn.tool.after'),
    tool: name.startsWith('mcp__') ? hookToolName(name, opts) : name,
    arguments: toolInput,
  };
  if (callEvent === 'pre_tool_call') return { kind: 'call', event: callEvent, method, params, toolInput };
  const x = extraOf(body);
  const result = own(x, 'result');
  params.result = {
    // Hermes stringifies the tool's return value; anything else is shown as JSON.
    for_llm: typeof result === 'string' ? result : JSON.stringify(result ?? null),
    silent: false,
    is_error: own(x, 'status') === 'error',
    async: false,
  };
  const ms = own(x, 'duration_ms');
  // PicoClaw's after_tool duration is in nanoseconds.
  params.duration = typeof ms === 'number' && Number.isFinite(ms) ? Math.round(ms * 1e6) : 0;
  return { kind: 'call', event: callEvent, method, params, toolInput };
}

/**
 * pre_llm_call: the request about to go to the model, as the history plus the user's message.
 * Minimisation withholds the text unless the hook has conversation_access.
 */
function llmCall(body: Record<string, unknown>): HookRequest {
  const x = extraOf(body);
  const history = own(x, 'conversation_history');
  const messages = Array.isArray(history) ? history.filter(isPlainObject) : [];
  const user = own(x, 'user_message');
  if (typeof user === 'string') messages.push({ role: 'user', content: user });
  return {
    kind: 'call',
    event: 'pre_llm_call',
    method: Method.BeforeLlm,
    params: { meta: meta(body, 'turn.llm.request'), model: ownString(x, 'model'), messages },
  };
}

/** Every other event, as a runtime event (its strings withheld unless granted). */
function runtimeEvent(event: string, body: Record<string, unknown>, opts: RequestOptions) {
  return hostRuntimeEvent(event, { ...idsOf(body), name: ownString(body, 'profile') }, body, opts);
}
