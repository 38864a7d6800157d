import { describe, expect, it } from 'vitest';
import { QueueDeadlineError, StdinQueue } from '../../src/backends/stdin-queue.js';
import { SENT } from '../../src/core/transport.js';
import { unreadSocket } from '../helpers/unread-socket.js';

const MiB = 1024 * 1024;

describe('StdinQueue', () => {
  it('hands messages on while the stream takes them, queues them in order while it is full', async () => {
    const pipe = await unreadSocket();
    const queue = new StdinQueue(pipe.writer, 0, () => {});
    const big = 'x'.repeat(8 * MiB); // more than the kernel buffers hold: the stream is full after it
    await queue.send(`${big}\n`);
    expect(queue.bytes).toBeGreaterThan(0);
    const order: string[] = [];
    const sent = ['a', 'b', 'c'].map((m) => queue.send(`${m}\n`).then(() => order.push(m)));
    expect(queue.bytes).toBe(pipe.writer.writableLength + 6);
    let received = '';
    pipe.reader.setEncoding('utf8').on('data', (c: string) => {
      received += c;
    });
    pipe.reader.resume();
    await Promise.all(sent);
    expect(order).toEqual(['a', 'b', 'c']);
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(big.length + 7);
    expect(received.endsWith('\na\nb\nc\n')).toBe(true);
    expect(queue.bytes).toBe(0);
    pipe.close();
  });

  it('returns SENT for a message handed over at once, so the peer has no handler to attach', async () => {
    const pipe = await unreadSocket();
    const queue = new StdinQueue(pipe.writer, 0, () => {});
    expect(queue.send('a\n')).toBe(SENT);
    queue.stop('done');
    pipe.close();
  });

  it('takes a message out when its deadline passes while queued, and stops on stall or close', async () => {
    const pipe = await unreadSocket();
    let stalled = 0;
    const queue = new StdinQueue(pipe.writer, 100, () => stalled++);
    await queue.send(`${'x'.repeat(8 * MiB)}\n`);
    const inStream = pipe.writer.writableLength;
    const late = queue.send(`${'y'.repeat(MiB)}\n`, 50);
    const kept = queue.send('z\n');
    expect(queue.bytes).toBe(inStream + MiB + 3);
    await expect(late).rejects.toBeInstanceOf(QueueDeadlineError);
    expect(queue.bytes).toBe(inStream + 2);
    await expect.poll(() => stalled).toBe(1);
    queue.stop('hook exited');
    await expect(kept).rejects.toThrow('hook exited');
    await expect(queue.send('after\n')).rejects.toThrow(/closed/);
    pipe.close();
  });
});
