import { describe, expect, it } from 'vitest';
import { fillBack, jsonEqual } from '../../src/policy/equal.js';

describe('jsonEqual and fillBack with a "__proto__" key from the wire', () => {
  it('compares own keys only', () => {
    const proto = JSON.parse('{"__proto__":{}}');
    expect(jsonEqual(proto, {})).toBe(false);
    expect(jsonEqual({}, proto)).toBe(false);
    expect(jsonEqual(proto, JSON.parse('{"__proto__":{}}'))).toBe(true);
  });

  it('fills back into an own field, never into the prototype', () => {
    const returned = JSON.parse('{"for_llm":"new","__proto__":{"is_error":true}}');
    const out = fillBack({ for_llm: 'old', is_error: false }, { for_llm: 'old', is_error: false }, returned);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.is_error).toBe(false);
    expect(JSON.stringify(out)).toBe('{"for_llm":"new","is_error":false,"__proto__":{"is_error":true}}');
  });
});
