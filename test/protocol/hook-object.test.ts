import { describe, expect, it } from 'vitest';
import {
  HookContext,
  hookObjectMethod,
  hookObjectProblems,
  isHookObject,
  isThenable,
} from '../../src/protocol/hook-object.js';

describe('isHookObject', () => {
  it('takes functions for the methods and an array of definitions for `tools`', () => {
    expect(isHookObject({})).toBe(true);
    expect(isHookObject({ beforeTool: () => ({}), tools: [] })).toBe(true);
    expect(isHookObject({ beforeTool: 'no' })).toBe(false);
    // A `tools` that is not a list would make the MCP route list garbage: not a hook object.
    expect(isHookObject({ tools: { get_weather: {} } })).toBe(false);
    expect(isHookObject(null)).toBe(false);
  });

  it('maps wire methods to functions only (never to `tools` or `name`)', () => {
    expect(hookObjectMethod('hook.before_tool')).toBe('beforeTool');
    expect(hookObjectMethod('tools')).toBeUndefined();
    expect(hookObjectMethod('constructor')).toBeUndefined();
  });
});

describe('hookObjectProblems', () => {
  it('an object with no hook function is an error naming what it has instead', () => {
    expect(hookObjectProblems({}, ['tool']).error).toBe(
      'the hook object has none of the hook functions beforeLlm, afterLlm, beforeTool, afterTool, approveTool, onEvent',
    );
    const misspelt = { before_tool: () => ({}), tools: [] } as never;
    expect(hookObjectProblems(misspelt, ['tool']).error).toMatch(/; it has before_tool$/);
  });

  it('a mode no function serves is reported, not an error', () => {
    expect(hookObjectProblems({ beforeTool: () => ({}) }, ['llm', 'tool', 'approve'])).toEqual({
      unserved: ['llm', 'approve'],
    });
    expect(hookObjectProblems({ afterLlm: () => ({}), onEvent: () => {} }, ['llm', 'observe'])).toEqual({
      unserved: [],
    });
  });
});

describe('HookContext', () => {
  /** A source that counts how often its signal is read, as a gateway's lazy signal would be made. */
  function countingSource() {
    const controller = new AbortController();
    const source = {
      reads: 0,
      get signal() {
        source.reads++;
        return controller.signal;
      },
    };
    return { source, controller };
  }

  it("reads its source's signal only when the hook reads it, every time", () => {
    const { source, controller } = countingSource();
    const ctx = new HookContext('hook.before_tool', 'acme', 'guard', source);
    expect(source.reads).toBe(0);
    expect(ctx.signal).toBe(controller.signal);
    controller.abort();
    expect(ctx.signal.aborted).toBe(true);
    expect(source.reads).toBe(2);
  });

  it('shows the names and the signal as its own fields, and nothing of its source', () => {
    const { source, controller } = countingSource();
    const ctx = new HookContext('hook.before_tool', 'acme', 'guard', source);
    expect(Object.keys(ctx)).toEqual(['method', 'tenant', 'hook', 'signal']);
    expect(Reflect.ownKeys(ctx)).toEqual(['method', 'tenant', 'hook', 'signal']);
    // A spread is a plain copy with a working signal (a hook may pass `{ ...ctx }` on).
    const copy = { ...ctx };
    expect(copy).toEqual({
      method: 'hook.before_tool',
      tenant: 'acme',
      hook: 'guard',
      signal: controller.signal,
    });
    // Two contexts keep their own sources.
    const other = countingSource();
    expect(new HookContext('m', 't', 'h', other.source).signal).toBe(other.controller.signal);
    expect(ctx.signal).toBe(controller.signal);
  });
});

describe('isThenable', () => {
  it('takes promises and objects with a then function, nothing else', () => {
    expect(isThenable(Promise.resolve(1))).toBe(true);
    // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test is about.
    expect(isThenable({ then: () => {} })).toBe(true);
    // biome-ignore lint/suspicious/noThenProperty: a then that is not a function makes no thenable.
    expect(isThenable({ then: 1 })).toBe(false);
    expect(isThenable({ action: 'continue' })).toBe(false);
    expect(isThenable(undefined)).toBe(false);
    expect(isThenable('then')).toBe(false);
  });
});
