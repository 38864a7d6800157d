import { describe, expect, it } from 'vitest';
import { setOwn } from '../../src/lib/own-property.js';

describe('setOwn', () => {
  it('sets "__proto__" as an own field and leaves the prototype alone', () => {
    const target: Record<string, unknown> = {};
    setOwn(target, '__proto__', { approved: true });
    setOwn(target, 'x', 1);
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(target.approved).toBeUndefined();
    expect(JSON.stringify(target)).toBe('{"__proto__":{"approved":true},"x":1}');
  });
});
