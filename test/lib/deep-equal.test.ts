import { describe, expect, it } from 'vitest';
import { deepEqual } from '../../src/lib/deep-equal.js';

describe('deepEqual', () => {
  it('compares compiled config shapes by value', () => {
    const hook = () => ({
      modes: new Set(['tool']),
      list: ['a', 'b'],
      backend: { type: 'stdio', env: { A: '1' }, cwd: undefined },
      key: new Uint8Array([1, 2, 3]),
      byName: new Map([['x', { n: 1 }]]),
    });
    expect(deepEqual(hook(), hook())).toBe(true);
    expect(deepEqual(hook(), { ...hook(), modes: new Set(['llm']) })).toBe(false);
    expect(deepEqual(hook(), { ...hook(), list: ['b', 'a'] })).toBe(false);
    expect(deepEqual(hook(), { ...hook(), key: new Uint8Array([1, 2, 4]) })).toBe(false);
    expect(deepEqual(hook(), { ...hook(), backend: { type: 'stdio', env: { A: '2' } } })).toBe(false);
    expect(deepEqual(hook(), { ...hook(), byName: new Map([['x', { n: 2 }]]) })).toBe(false);
    // An absent key and one set to undefined are the same config.
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
  });
});
