import { describe, expect, it } from 'vitest';
import { fitsUtf8, utf8Length } from '../../src/core/ndjson.js';

describe('UTF-8 sizes', () => {
  it.each([
    ['ascii', 'hello', 5],
    ['two-byte', 'é', 2],
    ['three-byte', '€', 3],
    ['astral (surrogate pair)', '😀', 4],
    ['mixed', 'a€😀é', 10],
  ])('counts %s like Buffer.byteLength', (_n, s, bytes) => {
    expect(utf8Length(s)).toBe(bytes);
    expect(utf8Length(s)).toBe(Buffer.byteLength(s));
  });

  it('fitsUtf8 agrees with the exact size at and around the limit', () => {
    for (const s of ['abc', '€€€', 'a😀', 'é'.repeat(10), 'x'.repeat(100)]) {
      const n = Buffer.byteLength(s);
      expect(fitsUtf8(s, n)).toBe(true);
      expect(fitsUtf8(s, n - 1)).toBe(false);
      expect(fitsUtf8(s, n * 3)).toBe(true);
    }
  });
});
