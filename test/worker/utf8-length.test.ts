import { describe, expect, it } from 'vitest';
import { fitsUtf8, utf8Length } from '../../src/core/utf8-length.js';
import { longCases, UTF8_CASES } from '../core/utf8-cases.js';

// The Node suite runs the same table (test/core/utf8-length.test.ts): a cap on message size means
// the same number of bytes on both runtimes.
describe('UTF-8 sizes in workerd', () => {
  for (const [name, s, bytes] of [...UTF8_CASES, ...longCases()]) {
    it(name, () => {
      expect(utf8Length(s)).toBe(bytes);
      expect(new TextEncoder().encode(s).length).toBe(bytes);
      expect(fitsUtf8(s, bytes)).toBe(true);
      if (bytes > 0) expect(fitsUtf8(s, bytes - 1)).toBe(false);
    });
  }
});
