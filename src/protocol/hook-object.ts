import type { ToolDefinition } from './tool-definition.js';

/**
 * The in-process form of a hook: a plain object with one optional async function per method.
 * A `module` backend loads one of these as a JS module's default export; the SDK's defineHook
 * builds them. Each function returns the method's result exactly as it would go on the wire.
 */
export interface HookCallContext {
  /** The JSON-RPC method name, e.g. `hook.before_tool`. */
  method: string;
  tenant: string;
  hook: string;
  /** Aborted when the gateway gives up on the call (deadline or shutdown). */
  signal: AbortSignal;
}

type Fn = (params: any, ctx: HookCallContext) => unknown | Promise<unknown>;

export interface HookObject {
  name?: string;
  /** Definitions of the tools the hook answers (defineHook fills it): the MCP route lists them. */
  tools?: readonly ToolDefinition[];
  beforeLlm?: Fn;
  afterLlm?: Fn;
  beforeTool?: Fn;
  afterTool?: Fn;
  approveTool?: Fn;
  onEvent?: (params: any, ctx: HookCallContext) => void | Promise<void>;
}

export const HOOK_OBJECT_METHODS: Record<string, keyof HookObject> = {
  'hook.before_llm': 'beforeLlm',
  'hook.after_llm': 'afterLlm',
  'hook.before_tool': 'beforeTool',
  'hook.after_tool': 'afterTool',
  'hook.approve_tool': 'approveTool',
  'hook.runtime_event': 'onEvent',
  'hook.event': 'onEvent',
};

/** The hook object's function for a wire method name; own names only (`constructor` finds nothing). */
export function hookObjectMethod(method: string): keyof HookObject | undefined {
  return Object.hasOwn(HOOK_OBJECT_METHODS, method) ? HOOK_OBJECT_METHODS[method] : undefined;
}

export function isHookObject(value: unknown): value is HookObject {
  if (typeof value !== 'object' || value === null) return false;
  const names = ['beforeLlm', 'afterLlm', 'beforeTool', 'afterTool', 'approveTool', 'onEvent'] as const;
  const v = value as Record<string, unknown>;
  return (
    names.every((n) => v[n] === undefined || typeof v[n] === 'function') &&
    (v.tools === undefined || Array.isArray(v.tools))
  );
}
