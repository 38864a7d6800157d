import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../src/lib/json-duplicate-keys.js';

describe('findDuplicateKey', () => {
  it('finds a key repeated in one object, at any depth', () => {
    expect(findDuplicateKey('{"approved":false,"Approved":true,"approved":false}')).toBe('approved');
    expect(findDuplicateKey('{"a":{"b":1,"c":[{"d":1},{"e":2,"e":3}]}}')).toBe('e');
    expect(findDuplicateKey('{"a":1, "b":2,\n "a" : 3}')).toBe('a');
  });

  it('finds repeats in objects with many keys too', () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const text = JSON.stringify(many);
    expect(findDuplicateKey(text)).toBeUndefined();
    expect(findDuplicateKey(`${text.slice(0, -1)},"k3":0}`)).toBe('k3');
    expect(findDuplicateKey(`${text.slice(0, -1)},"k39":0}`)).toBe('k39');
  });

  it('compares keys after unescaping, as parsers do', () => {
    expect(findDuplicateKey('{"approved":true,"appro\\u0076ed":false}')).toBe('approved');
    expect(findDuplicateKey('{"a\\"b":1,"a\\u0022b":2}')).toBe('a"b');
  });

  it('does not confuse case variants, the same key in sibling objects, or strings that look like keys', () => {
    expect(findDuplicateKey('{"approved":false,"Approved":true}')).toBeUndefined();
    expect(findDuplicateKey('[{"a":1},{"a":2}]')).toBeUndefined();
    expect(findDuplicateKey('{"a":{"a":{"a":1}}}')).toBeUndefined();
    expect(findDuplicateKey('{"a":"b","c":["b","b"],"d":"\\"a\\":1, \\"a\\":2"}')).toBeUndefined();
    expect(findDuplicateKey('{"a\\\\":1,"a":2}')).toBeUndefined();
  });

  it('reports nothing for text that is not JSON (JSON.parse rejects it anyway)', () => {
    expect(findDuplicateKey('{"a":1,"a')).toBeUndefined();
    expect(findDuplicateKey('')).toBeUndefined();
  });
});
