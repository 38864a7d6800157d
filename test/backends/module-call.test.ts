import { describe, expect, it } from 'vitest';
import { ModuleBackend } from '../../src/backends/module.js';
import { BackendError } from '../../src/backends/types.js';
import type { HookObject } from '../../src/protocol/hook-object.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const backend = (hook: HookObject) =>
  new ModuleBackend(hook, { tenant: 'acme', hook: 'h', modes: ['tool'], log: quiet });

async function codeOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BackendError);
  return (err as BackendError).code;
}

describe('ModuleBackend calls', () => {
  it('passes a synchronous answer through, with the call context', async () => {
    let seen: { method: string; tenant: string; hook: string } | undefined;
    const b = backend({
      name: 'h',
      beforeTool: (params: { tool: string }, ctx) => {
        seen = { method: ctx.method, tenant: ctx.tenant, hook: ctx.hook };
        return { action: 'continue', tool: params.tool };
      },
    });
    expect(await b.call('hook.before_tool', { tool: 'x' }, 100)).toEqual({ action: 'continue', tool: 'x' });
    expect(seen).toEqual({ method: 'hook.before_tool', tenant: 'acme', hook: 'h' });
  });

  it('callNow answers a hook that answers at once at once, and only a later answer as a promise', async () => {
    const b = backend({
      name: 'h',
      beforeTool: (params: { tool: string }) => ({ action: 'continue', tool: params.tool }),
      afterTool: async () => ({ action: 'continue' }),
      beforeLlm: () => {
        throw new Error('sync boom');
      },
    });
    expect(b.callNow('hook.before_tool', { tool: 'x' }, 100)).toEqual({ action: 'continue', tool: 'x' });
    expect(b.callNow('hook.approve_tool', {}, 100)).toBeUndefined();
    const later = b.callNow('hook.after_tool', {}, 100);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual({ action: 'continue' });
    // A failure at once is thrown as the BackendError the promise would have rejected with.
    expect(() => b.callNow('hook.before_llm', {}, 100)).toThrow(
      expect.objectContaining({ code: 'BACKEND_ERROR_REPLY', message: 'sync boom' }),
    );
    await b.close();
    expect(() => b.callNow('hook.before_tool', { tool: 'x' }, 100)).toThrow(
      expect.objectContaining({ code: 'BACKEND_CLOSED' }),
    );
    // `call` stays a promise that never throws, whatever callNow does.
    expect(await codeOf(b.call('hook.before_tool', { tool: 'x' }, 100))).toBe('BACKEND_CLOSED');
  });

  it('answers undefined for a method the module does not implement', async () => {
    expect(await backend({ name: 'h' }).call('hook.after_tool', {}, 100)).toBeUndefined();
  });

  it('turns a synchronous throw and an async rejection into BACKEND_ERROR_REPLY', async () => {
    const b = backend({
      name: 'h',
      beforeTool: () => {
        throw new Error('sync boom');
      },
      afterTool: async () => {
        throw new Error('async boom');
      },
    });
    expect(await codeOf(b.call('hook.before_tool', {}, 100))).toBe('BACKEND_ERROR_REPLY');
    expect(await codeOf(b.call('hook.after_tool', {}, 100))).toBe('BACKEND_ERROR_REPLY');
  });

  it('times out an async hook at its deadline and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const b = backend({
      name: 'h',
      beforeTool: (_p, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
    });
    const started = Date.now();
    expect(await codeOf(b.call('hook.before_tool', {}, 50))).toBe('BACKEND_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(signal?.aborted).toBe(true);
  });

  it('close() aborts the signals of calls in flight and refuses new calls', async () => {
    let signal: AbortSignal | undefined;
    const b = backend({
      name: 'h',
      beforeTool: (_p, ctx) => {
        signal = ctx.signal;
        return new Promise((resolve) => setTimeout(() => resolve({ action: 'continue' }), 30));
      },
    });
    const pending = b.call('hook.before_tool', {}, 1000);
    await b.close();
    expect(signal?.aborted).toBe(true);
    await pending;
    expect(await codeOf(b.call('hook.before_tool', {}, 100))).toBe('BACKEND_CLOSED');
  });

  it('gives the hook a plain context: a spread keeps a working signal, and nothing else is exposed', async () => {
    let spread: Record<string, unknown> | undefined;
    const b = backend({
      name: 'h',
      beforeTool: async (_p, ctx) => {
        spread = { ...ctx };
        await new Promise(() => {});
      },
    });
    expect(await codeOf(b.call('hook.before_tool', {}, 30))).toBe('BACKEND_TIMEOUT');
    expect(Object.keys(spread ?? {}).sort()).toEqual(['hook', 'method', 'signal', 'tenant']);
    expect((spread as { signal: AbortSignal }).signal.aborted).toBe(true);
  });
});
