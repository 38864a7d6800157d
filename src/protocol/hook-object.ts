import type { Mode } from './methods.js';
import type { ToolDefinition } from './tool-definition.js';

/**
 * The in-process form of a hook: a plain object with one optional function per method.
 * A `module` backend loads one of these as a JS module's default export; the SDK's defineHook
 * builds them. Each function returns the method's result exactly as it would go on the wire, or a
 * promise of it.
 */
export interface HookCallContext {
  /** The JSON-RPC method name, e.g. `hook.before_tool`. */
  method: string;
  tenant: string;
  hook: string;
  /** Aborted when the gateway gives up on the call (deadline or shutdown). */
  signal: AbortSignal;
  /**
   * The W3C trace context of the gateway's span for this call, when the gateway traces
   * (server.tracing): spans the hook makes belong beneath it. Absent otherwise.
   */
  readonly traceparent?: string;
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

const HOOK_FUNCTIONS = [
  'beforeLlm',
  'afterLlm',
  'beforeTool',
  'afterTool',
  'approveTool',
  'onEvent',
] as const;

/** The functions that serve each mode: a hook with the mode needs at least one of them. */
const SERVING: Record<Mode, readonly (typeof HOOK_FUNCTIONS)[number][]> = {
  observe: ['onEvent'],
  llm: ['beforeLlm', 'afterLlm'],
  tool: ['beforeTool', 'afterTool'],
  approve: ['approveTool'],
};

export function isHookObject(value: unknown): value is HookObject {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    HOOK_FUNCTIONS.every((n) => v[n] === undefined || typeof v[n] === 'function') &&
    (v.tools === undefined || Array.isArray(v.tools))
  );
}

/**
 * What is wrong with a module's hook object for a hook with `modes`. A method the object lacks
 * answers the zero value (no objection), so an object with no hook function at all, such as one
 * whose methods are misspelt (`before_tool`), would let every call through while looking
 * configured: that is an `error`. A mode no function serves is only `unserved`: the default modes
 * are llm and tool, and a hook may well answer only one of them.
 */
export function hookObjectProblems(
  value: HookObject,
  modes: Iterable<Mode>,
): { error?: string; unserved: Mode[] } {
  const has = (n: (typeof HOOK_FUNCTIONS)[number]) => typeof value[n] === 'function';
  const unserved = [...modes].filter((m) => !SERVING[m].some(has));
  if (HOOK_FUNCTIONS.some(has)) return { unserved };
  const functions = Object.keys(value).filter(
    (k) => typeof (value as Record<string, unknown>)[k] === 'function',
  );
  const found = functions.length > 0 ? `; it has ${functions.join(', ')}` : '';
  return {
    error: `the hook object has none of the hook functions ${HOOK_FUNCTIONS.join(', ')}${found}`,
    unserved,
  };
}

/** A value that is a promise or acts like one: what a hook function may return instead of its answer. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

type SignalSource = { readonly signal: AbortSignal };

/**
 * A hook call's context as the hook sees it: the call's names and a `signal` that is its source's,
 * read only when the hook reads it (a gateway makes an AbortSignal on first read: they are costly in
 * Node and most hooks never look). `signal` is the object's own, enumerable property, so
 * `{ ...ctx }` keeps a working signal; the source is a private field, which neither a spread nor
 * `Object.keys` shows. One getter serves every call: an object literal with a `get signal()` of its
 * own makes a closure and an accessor pair per call, and costs three times as much to make.
 */
export class HookContext implements HookCallContext {
  static readonly #signal: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: HookContext): AbortSignal {
      return this.#source.signal;
    },
  };
  readonly #source: SignalSource;
  method: string;
  tenant: string;
  hook: string;
  declare readonly signal: AbortSignal;

  constructor(method: string, tenant: string, hook: string, source: SignalSource) {
    this.method = method;
    this.tenant = tenant;
    this.hook = hook;
    this.#source = source;
    Object.defineProperty(this, 'signal', HookContext.#signal);
  }
}
