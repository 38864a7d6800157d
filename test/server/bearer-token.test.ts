import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../src/server/auth.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** What the scan replaces, and must keep agreeing with. */
const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;
const byExpression = (auth: string): string | undefined => BEARER.exec(auth)?.[1];

// Letters of the scheme in both cases, their neighbours under `| 0x20`, spaces, other white space,
// and characters that fold onto ASCII letters elsewhere (Kelvin sign, long s, dotted I).
const PIECES = [
  'Bearer',
  'bearer',
  'BEARER',
  'bEaReR',
  'Bearer ',
  ' ',
  '  ',
  '\t',
  '\n',
  'x',
  'ab.cd-ef',
  '@',
  '`',
  'B',
  'b',
  '\u212a',
  '\u017f',
  '\u0130',
  'Bearer\u00a0',
  'eyJhbGciOi',
];

describe('bearerToken', () => {
  it('reads what the expression reads, on hand-picked values', () => {
    for (const auth of [
      'Bearer abc',
      'bearer abc',
      'BEARER    abc   ',
      'Bearer',
      'Bearer ',
      'Bearer  ',
      'Bearerabc',
      'Bearer\tabc',
      'Bearer abc def',
      'Bearer abc\t',
      ' Bearer abc',
      'Basic abc',
      'Bearer a',
      'Bearer \u212aey',
      'Bearer@ abc',
      'Bearer` abc',
      'B\u0130arer abc',
      `Bearer ${'x'.repeat(300)}`,
    ]) {
      expect(bearerToken(auth), JSON.stringify(auth)).toBe(byExpression(auth));
    }
  });

  it('reads what the expression reads, on 20,000 generated values', () => {
    const next = seededRandom(19);
    let matched = 0;
    for (let n = 0; n < 20_000; n++) {
      let auth = next() < 0.7 ? PIECES[Math.floor(next() * 5)] : '';
      const parts = Math.floor(next() * 5);
      for (let k = 0; k < parts; k++) auth += PIECES[Math.floor(next() * PIECES.length)];
      const expected = byExpression(auth);
      if (expected !== undefined) matched++;
      expect(bearerToken(auth), JSON.stringify(auth)).toBe(expected);
    }
    // Both sides of the comparison are exercised, not only refusals.
    expect(matched).toBeGreaterThan(2_000);
  });
});
