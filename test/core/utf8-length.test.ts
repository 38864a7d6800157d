import { describe, expect, it } from 'vitest';
import { fitsUtf8, utf8Length, utf8LengthByLoop } from '../../src/core/utf8-length.js';
import { longCases, UTF8_CASES } from './utf8-cases.js';

describe('UTF-8 sizes', () => {
  it.each([...UTF8_CASES, ...longCases()])('%s: as TextEncoder and Buffer write it', (_n, s, bytes) => {
    expect(utf8Length(s)).toBe(bytes);
    expect(utf8LengthByLoop(s)).toBe(bytes);
    expect(new TextEncoder().encode(s).length).toBe(bytes);
    expect(Buffer.byteLength(s, 'utf8')).toBe(bytes);
    expect(Buffer.from(s, 'utf8').length).toBe(bytes);
  });

  it('fitsUtf8 agrees with the exact size at and around the limit', () => {
    for (const s of ['abc', '€€€', 'a😀', 'é'.repeat(10), 'x'.repeat(100), '\ud800'.repeat(50)]) {
      const n = Buffer.byteLength(s);
      expect(fitsUtf8(s, n)).toBe(true);
      expect(fitsUtf8(s, n - 1)).toBe(false);
      expect(fitsUtf8(s, n * 3)).toBe(true);
    }
  });
});
