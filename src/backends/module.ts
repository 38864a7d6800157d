import { jsonClone } from '../core/json-clone.js';
import {
  type HookCallContext,
  type HookObject,
  HookContext,
  hookObjectMethod,
  isThenable,
} from '../protocol/hook-object.js';
import type { ToolDefinition } from '../protocol/tool-definition.js';
import { BackendError, type BackendContext, type CallContext, type HookBackend } from './types.js';

/**
 * A hook running in the gateway's own process: a HookObject (see the SDK's defineHook). Each call
 * gets its own copy of the params, so a hook that edits them in place cannot change what the
 * policy compares its answer against.
 */
export class ModuleBackend implements HookBackend {
  readonly kind = 'module' as const;
  private closed = false;
  private readonly inflight = new Set<{ abort(): void }>();

  constructor(
    private readonly hook: HookObject,
    private readonly ctx: BackendContext,
  ) {}

  async start(): Promise<void> {}

  ready(): boolean {
    return !this.closed;
  }

  declaredTools(): readonly ToolDefinition[] | undefined {
    return this.hook.tools;
  }

  call(method: string, params: unknown, timeoutMs: number, ctx?: CallContext): Promise<unknown> {
    try {
      const out = this.callNow(method, params, timeoutMs, ctx);
      return out instanceof Promise ? out : Promise.resolve(out);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  callNow(method: string, params: unknown, timeoutMs: number, ctx?: CallContext): unknown {
    if (this.closed) throw new BackendError('BACKEND_CLOSED', 'backend is closed');
    const name = hookObjectMethod(method);
    const fn = name ? this.hook[name] : undefined;
    // A method the module does not implement answers the zero value, as a silent stdio hook would.
    if (typeof fn !== 'function') return undefined;
    const call = new ModuleCall(this.ctx, method, this.inflight, ctx?.traceparent);
    return call.run(this.hook, fn, jsonClone(params), timeoutMs);
  }

  notify(method: string, params: unknown): void {
    if (this.closed || typeof this.hook.onEvent !== 'function') return;
    const onEvent = this.hook.onEvent;
    const abort = new AbortController();
    Promise.resolve()
      .then(() =>
        onEvent.call(this.hook, params, {
          method,
          tenant: this.ctx.tenant,
          hook: this.ctx.hook,
          signal: abort.signal,
        }),
      )
      .catch((err: unknown) => {
        this.ctx.log.warn(
          { tenant: this.ctx.tenant, hook: this.ctx.hook, err: String(err) },
          'module hook onEvent failed',
        );
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const a of this.inflight) a.abort();
  }
}

type HookFn = (this: HookObject, params: unknown, ctx: HookCallContext) => unknown;

/**
 * One call into a module hook. A class rather than closures: it is made for every call. A hook that
 * answers synchronously needs no deadline timer (nothing could have interrupted it anyway); an async
 * one gets one, and its signal aborts at the deadline.
 */
class ModuleCall {
  #controller?: AbortController;
  #aborted = false;
  #timer?: ReturnType<typeof setTimeout>;
  readonly #inflight: Set<{ abort(): void }>;
  readonly #ctx: BackendContext;
  readonly #method: string;
  readonly #traceparent: string | undefined;

  constructor(ctx: BackendContext, method: string, inflight: Set<{ abort(): void }>, traceparent?: string) {
    this.#ctx = ctx;
    this.#method = method;
    this.#inflight = inflight;
    this.#traceparent = traceparent;
  }

  /**
   * What the hook sees: its names and this call's signal, made when first read; the hook sees
   * nothing of this class.
   */
  private context(): HookCallContext {
    const context: HookContext & { traceparent?: string } = new HookContext(
      this.#method,
      this.#ctx.tenant,
      this.#ctx.hook,
      this,
    );
    // Only when the gateway traces: an untraced call's context has no such key at all.
    if (this.#traceparent !== undefined) context.traceparent = this.#traceparent;
    return context;
  }

  /** Made on first read: AbortSignals are costly in Node and most hooks never look at theirs. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      // First read after the deadline: the signal must already say so.
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  abort(): void {
    this.#aborted = true;
    this.#controller?.abort();
  }

  /** The hook's answer: at once when it answers at once (a throw is its BackendError), else a promise. */
  run(target: HookObject, fn: HookFn, params: unknown, timeoutMs: number): unknown {
    let out: unknown;
    try {
      out = fn.call(target, params, this.context());
    } catch (err) {
      throw asBackendError(err);
    }
    if (!isThenable(out)) return out;
    this.#inflight.add(this);
    return new Promise((resolve, reject) => {
      this.#timer = setTimeout(() => {
        this.settle();
        this.abort();
        reject(new BackendError('BACKEND_TIMEOUT', `${this.#method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      out.then(
        (value) => {
          this.settle();
          resolve(value);
        },
        (err: unknown) => {
          this.settle();
          reject(asBackendError(err));
        },
      );
    });
  }

  private settle(): void {
    clearTimeout(this.#timer);
    this.#inflight.delete(this);
  }
}

function asBackendError(err: unknown): BackendError {
  if (err instanceof BackendError) return err;
  return new BackendError('BACKEND_ERROR_REPLY', err instanceof Error ? err.message : String(err), {
    cause: err,
  });
}
