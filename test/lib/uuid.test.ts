import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUuid } from '../../src/lib/uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives RFC 9562 version 4 UUIDs, all different, across several batches of random bytes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const id = randomUuid();
      expect(id).toMatch(V4);
      seen.add(id);
    }
    expect(seen.size).toBe(5_000);
  });

  it('uses every random bit it is given outside the version and variant bits', () => {
    // Each of the 30 free hex digits takes every value somewhere in a few thousand UUIDs.
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 4_000; i++) {
      const id = randomUuid();
      for (let c = 0; c < 36; c++) digits[c].add(id[c]);
    }
    for (const c of [8, 13, 18, 23]) expect([...digits[c]]).toEqual(['-']);
    expect([...digits[14]]).toEqual(['4']);
    expect([...digits[19]].sort()).toEqual(['8', '9', 'a', 'b']);
    for (let c = 0; c < 36; c++) {
      if ([8, 13, 14, 18, 19, 23].includes(c)) continue;
      expect(digits[c].size).toBe(16);
    }
  });

  it('draws its bytes from crypto.getRandomValues, a batch at a time', () => {
    const spy = vi.spyOn(crypto, 'getRandomValues');
    for (let i = 0; i < 600; i++) randomUuid();
    // 600 UUIDs take 16 bytes each from batches of 256 UUIDs' worth: two or three draws.
    expect(spy.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(spy.mock.calls.length).toBeLessThanOrEqual(3);
  });

  it('is the bytes it was given, written as hex', () => {
    // A CSPRNG stand-in that returns a known pattern: each byte its own index.
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(a: T): T => {
      const bytes = a as unknown as Uint8Array;
      for (let i = 0; i < bytes.length; i++) bytes[i] = i & 0xff;
      return a;
    });
    // Use up whatever is left of the current batch, then read the first UUID of a fresh one.
    let id = randomUuid();
    for (let i = 0; i < 300 && id !== '00010203-0405-4607-8809-0a0b0c0d0e0f'; i++) id = randomUuid();
    expect(id).toBe('00010203-0405-4607-8809-0a0b0c0d0e0f');
  });
});
