import { describe, expect, it } from 'vitest';
import { jsonClone } from '../../src/core/json-clone.js';

describe('jsonClone', () => {
  it('copies deeply: editing the copy leaves the original as it was', () => {
    const original = { a: [1, { b: 'x' }], c: null, d: { e: true, f: [[2]] } };
    const copy = jsonClone(original);
    expect(copy).toEqual(original);
    (copy.a[1] as { b: string }).b = 'changed';
    copy.d.f[0].push(3);
    expect(original).toEqual({ a: [1, { b: 'x' }], c: null, d: { e: true, f: [[2]] } });
  });

  it('keeps primitives as they are', () => {
    expect(jsonClone('s')).toBe('s');
    expect(jsonClone(3)).toBe(3);
    expect(jsonClone(null)).toBe(null);
  });

  it('copies a "__proto__" key (own, as JSON.parse makes it) as an own key, not as the prototype', () => {
    const params = JSON.parse('{"tool":"exec","__proto__":{"tool":"get_weather","approved":true}}');
    const copy = jsonClone(params);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy.approved).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(params));
  });
});
