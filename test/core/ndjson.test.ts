import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/core/ndjson.js';

/** A chunk that counts the bytes every indexOf looks at, and hands the counter to its subarrays. */
class CountingChunk extends Uint8Array {
  static examined = 0;
  override indexOf(value: number, from = 0): number {
    const at = super.indexOf(value, from);
    CountingChunk.examined += (at === -1 ? this.length : at + 1) - from;
    return at;
  }
}

function chunksOf(bytes: Uint8Array, size: number): CountingChunk[] {
  const out: CountingChunk[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(new CountingChunk(bytes.subarray(i, i + size)));
  return out;
}

describe('LineSplitter', () => {
  it('splits lines across chunks, drops blank ones and a trailing \\r', () => {
    const lines: string[] = [];
    const s = new LineSplitter(
      1024,
      (l) => lines.push(l),
      () => {},
    );
    const enc = new TextEncoder();
    for (const part of ['{"a":', '1}\r\n\n{"b"', ':"é😀"}\n', '{"c":3}\n{"d"']) s.push(enc.encode(part));
    expect(lines).toEqual(['{"a":1}', '{"b":"é😀"}', '{"c":3}']);
  });

  it('drops a line over the cap whole and reads the next one', () => {
    const lines: string[] = [];
    const dropped: number[] = [];
    const s = new LineSplitter(
      8,
      (l) => lines.push(l),
      (n) => dropped.push(n),
    );
    s.push(new TextEncoder().encode(`${'x'.repeat(20)}\n{"ok":1}\n`));
    expect(dropped).toEqual([20]);
    expect(lines).toEqual(['{"ok":1}']);
  });

  // A reader that appends each chunk and searches the whole line again for the newline does work
  // quadratic in the line's length (26.8 ms of CPU per 1 MiB line in one hook measured). Each byte
  // must be looked at once, however the line is cut.
  it.each([
    [1024 * 1024, 64],
    [1024 * 1024, 4096],
    [7 * 1024 * 1024, 65536],
  ])('reads a %i-byte line cut into %i-byte chunks looking at each byte once', (size, chunk) => {
    const line = new Uint8Array(size + 1).fill(0x61);
    line[size] = 0x0a;
    const got: string[] = [];
    const s = new LineSplitter(
      size + 1,
      (l) => got.push(l),
      () => {},
    );
    CountingChunk.examined = 0;
    for (const c of chunksOf(line, chunk)) s.push(c);
    expect(got).toHaveLength(1);
    expect(got[0].length).toBe(size);
    expect(CountingChunk.examined).toBe(size + 1);
  });
});
