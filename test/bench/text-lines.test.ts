import { describe, expect, it } from 'vitest';
import { TextLines } from '../../bench/lib/text-lines.js';

describe('TextLines (the bench clients’ stdout reader)', () => {
  it('splits lines across chunks and skips empty ones', () => {
    const got: string[] = [];
    const r = new TextLines((l) => got.push(l));
    for (const c of ['{"a":', '1}\n\n{"b"', ':"é😀"}\n{"c":3}\n{"d"']) r.push(c);
    expect(got).toEqual(['{"a":1}', '{"b":"é😀"}', '{"c":3}']);
  });

  it.each([
    [1024 * 1024, 64],
    [7 * 1024 * 1024, 65536],
  ])(
    'reads a %i-character line cut into %i-character chunks looking at each character once',
    (size, chunk) => {
      const text = `${'a'.repeat(size)}\n`;
      const got: string[] = [];
      const r = new TextLines((l) => got.push(l));
      for (let i = 0; i < text.length; i += chunk) r.push(text.slice(i, i + chunk));
      expect(got.map((l) => l.length)).toEqual([size]);
      expect(r.examined).toBe(size + 1);
    },
  );
});
