import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/lib/canonical-json.js';
import { sha256Hex } from '../../src/lib/sha256.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out what JSON leaves out', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: 'é' } })).toBe(
      '{"a":{"c":"é","d":[3,{"z":1}]},"b":1}',
    );
    expect(canonicalJson([undefined, () => 1])).toBe('[null,null]');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  it('writes the numbers and strings JSON.stringify writes', () => {
    for (const v of [0, -0, 1e21, 1.5e-7, 'a"\\\n\u2028', true, null])
      expect(canonicalJson(v)).toBe(JSON.stringify(v));
  });
});

describe('sha256Hex', () => {
  it('is SHA-256 of the UTF-8 text, as node:crypto computes it', async () => {
    for (const t of ['', 'abc', '{"é":"☃"}'])
      expect(await sha256Hex(t)).toBe(createHash('sha256').update(t, 'utf8').digest('hex'));
  });
});
