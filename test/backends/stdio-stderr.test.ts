import { describe, expect, it } from 'vitest';
import { HookStderr, type StderrLimits } from '../../src/backends/stdio-stderr.js';

function capture(limits: Partial<StderrLimits> = {}) {
  const out = { lines: [] as string[], dropped: 0, summaries: [] as number[] };
  const stderr = new HookStderr(
    { burstLines: 100, linesPerSecond: 0, maxLineBytes: 16, summaryMs: 60_000, ...limits },
    {
      line: (t) => out.lines.push(t),
      dropped: () => out.dropped++,
      summary: (n) => out.summaries.push(n),
    },
  );
  return { stderr, out };
}
const bytes = (s: string) => new TextEncoder().encode(s);

describe('HookStderr', () => {
  it('splits lines across chunks, drops CR and blank lines, and flushes a last partial line at end', () => {
    const { stderr, out } = capture();
    stderr.push(bytes('one\r\ntw'));
    stderr.push(bytes('o\n\n   \nthree'));
    expect(out.lines).toEqual(['one', 'two']);
    stderr.end();
    expect(out.lines).toEqual(['one', 'two', 'three']);
  });

  it('cuts a long line at maxLineBytes and says how many bytes it cut', () => {
    const { stderr, out } = capture();
    stderr.push(bytes(`${'a'.repeat(10)}${'b'.repeat(20)}`));
    stderr.push(bytes(`${'c'.repeat(30)}\nshort\n`));
    expect(out.lines).toEqual([`${'a'.repeat(10)}${'b'.repeat(6)}…[truncated 44 bytes]`, 'short']);
  });

  it('logs the burst, counts every dropped line and reports them in one summary', () => {
    const { stderr, out } = capture({ burstLines: 3 });
    stderr.push(bytes('1\n2\n3\n4\n5\n6\n'));
    expect(out.lines).toEqual(['1', '2', '3']);
    expect(out.dropped).toBe(3);
    expect(out.summaries).toEqual([]);
    stderr.end();
    expect(out.summaries).toEqual([3]);
  });

  it('sends the summary on its timer while the hook keeps running', async () => {
    const { stderr, out } = capture({ burstLines: 1, summaryMs: 30 });
    stderr.push(bytes('kept\ndropped\ndropped\n'));
    await expect.poll(() => out.summaries).toEqual([2]);
    stderr.push(bytes('dropped again\n'));
    await expect.poll(() => out.summaries).toEqual([2, 1]);
    stderr.end();
    expect(out.summaries).toEqual([2, 1]);
  });
});
