import { describe, expect, it } from 'vitest';
import { heapAfterGc } from '../helpers/heap.js';
import { StdinQueue } from '../../src/backends/stdin-queue.js';
import { unreadSocket } from '../helpers/unread-socket.js';

const MiB = 1024 * 1024;

describe('StdinQueue memory', () => {
  // With 64 calls of 64 KiB in flight most wait here while the hook catches up; kept as strings
  // they (and the client messages their params are slices of) sat on the JS heap, copied by the
  // young-generation collector at every scavenge.
  it('holds the messages that wait for the pipe outside the JS heap, and sends them whole', async () => {
    const pipe = await unreadSocket();
    const queue = new StdinQueue(pipe.writer, 0, () => {});
    await queue.send(`${'x'.repeat(8 * MiB)}\n`); // more than the kernel buffers hold: the stream is full
    const inStream = pipe.writer.writableLength;
    const before = heapAfterGc();
    const waiting: Array<Promise<void>> = [];
    for (let i = 0; i < 8; i++) {
      // 4 MiB on the JS heap each (JSON.parse copies it there; `repeat` alone makes a small tree),
      // referenced by nothing but the queue.
      const text = JSON.parse(`"${String.fromCharCode(0x61 + i).repeat(4 * MiB)}"`) as string;
      waiting.push(queue.send(`${text}\n`));
    }
    expect(queue.bytes).toBe(inStream + 8 * (4 * MiB + 1));
    await new Promise((resolve) => setImmediate(resolve));
    // Kept as strings, 32 MiB; as bytes, none (the last string may still sit in this frame: 4 MiB).
    expect(heapAfterGc() - before).toBeLessThan(10 * MiB);

    const chunks: Buffer[] = [];
    let received = 0;
    pipe.reader.on('data', (c: Buffer) => {
      chunks.push(c);
      received += c.length;
    });
    pipe.reader.resume();
    await Promise.all(waiting);
    await expect.poll(() => received, { timeout: 20_000 }).toBe(8 * MiB + 1 + 8 * (4 * MiB + 1));
    const all = Buffer.concat(chunks);
    for (let i = 0; i < 8; i++) {
      const at = 8 * MiB + 1 + i * (4 * MiB + 1);
      const line = all.subarray(at, at + 4 * MiB + 1);
      expect(line.equals(Buffer.from(`${String.fromCharCode(0x61 + i).repeat(4 * MiB)}\n`))).toBe(true);
    }
    expect(queue.bytes).toBe(0);
    pipe.close();
  });
});
