import { jsonClone } from '../core/json-clone.js';
import { HOOK_OBJECT_METHODS, type HookObject } from '../protocol/hook-object.js';
import { BackendError, type BackendContext, type HookBackend } from './types.js';

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

  async call(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) throw new BackendError('BACKEND_CLOSED', 'backend is closed');
    const name = HOOK_OBJECT_METHODS[method];
    const fn = name ? this.hook[name] : undefined;
    // A method the module does not implement answers the zero value, as a silent stdio hook would.
    if (typeof fn !== 'function') return undefined;
    // AbortSignals are costly to create in Node, and most hooks never look at theirs: make it on demand.
    let abort: AbortController | undefined;
    let aborted = false;
    const ctx = {
      method,
      tenant: this.ctx.tenant,
      hook: this.ctx.hook,
      get signal(): AbortSignal {
        if (!abort) {
          abort = new AbortController();
          // First read after the deadline: the signal must already say so.
          if (aborted) abort.abort();
        }
        return abort.signal;
      },
    };
    const call = {
      abort: () => {
        aborted = true;
        abort?.abort();
      },
    };
    this.inflight.add(call);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          call.abort();
          reject(new BackendError('BACKEND_TIMEOUT', `${method} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
      });
      const run = Promise.resolve().then(() => fn.call(this.hook, jsonClone(params), ctx));
      return await Promise.race([run, timeout]);
    } catch (err) {
      if (err instanceof BackendError) throw err;
      throw new BackendError('BACKEND_ERROR_REPLY', err instanceof Error ? err.message : String(err), {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      this.inflight.delete(call);
    }
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
