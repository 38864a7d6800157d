/**
 * The PicoClaw hook protocol v1: method names, modes and the shapes hookgate relies on.
 * See docs/protocol.md for where PicoClaw's source differs from its docs.
 */

export const PROTOCOL_VERSION = 1;

export const Method = {
  Hello: 'hook.hello',
  BeforeLlm: 'hook.before_llm',
  AfterLlm: 'hook.after_llm',
  BeforeTool: 'hook.before_tool',
  AfterTool: 'hook.after_tool',
  ApproveTool: 'hook.approve_tool',
  RuntimeEvent: 'hook.runtime_event',
  /** Removed from PicoClaw in favour of hook.runtime_event; still accepted from older hosts. */
  LegacyEvent: 'hook.event',
} as const;

export type InterceptorMethod =
  | typeof Method.BeforeLlm
  | typeof Method.AfterLlm
  | typeof Method.BeforeTool
  | typeof Method.AfterTool;

export type CallMethod = InterceptorMethod | typeof Method.ApproveTool;

export const MODES = ['observe', 'llm', 'tool', 'approve'] as const;
export type Mode = (typeof MODES)[number];

/**
 * Which mode a method belongs to; PicoClaw's intercept switches are per mode, not per method.
 * A Map, not an object literal: method names come from the wire, and `constructor` or `toString`
 * must not find anything through a prototype.
 */
const METHOD_MODE: ReadonlyMap<string, Mode> = new Map<string, Mode>([
  [Method.BeforeLlm, 'llm'],
  [Method.AfterLlm, 'llm'],
  [Method.BeforeTool, 'tool'],
  [Method.AfterTool, 'tool'],
  [Method.ApproveTool, 'approve'],
  [Method.RuntimeEvent, 'observe'],
  [Method.LegacyEvent, 'observe'],
]);

export function modeOf(method: string): Mode | undefined {
  return METHOD_MODE.get(method);
}

export function isCallMethod(method: string): method is CallMethod {
  return METHOD_MODE.has(method) && !isEventMethod(method);
}

export function isEventMethod(method: string): boolean {
  return method === Method.RuntimeEvent || method === Method.LegacyEvent;
}

export const ACTIONS = ['continue', 'modify', 'respond', 'deny_tool', 'abort_turn', 'hard_abort'] as const;
export type Action = (typeof ACTIONS)[number];

/** PicoClaw's interceptor result: a decision plus, depending on the method, one payload object. */
export interface InterceptorResult {
  action: Action;
  reason?: string;
  request?: Record<string, unknown>;
  response?: Record<string, unknown>;
  call?: Record<string, unknown>;
  result?: Record<string, unknown>;
}

export interface ApprovalResult {
  approved: boolean;
  reason?: string;
}

export type HookResult = InterceptorResult | ApprovalResult;

/** The modes PicoClaw lists in hello, in PicoClaw's order. */
export function orderModes(modes: Iterable<Mode>): Mode[] {
  const set = new Set(modes);
  return MODES.filter((m) => set.has(m));
}
