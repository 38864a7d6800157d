import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineBackpressure } from '../../src/lib/line-backpressure.js';
import { unreadSocket } from '../helpers/unread-socket.js';

describe('LineBackpressure', () => {
  it('holds input while the output is full and hands the held lines on, in order, once it drains', async () => {
    const pipe = await unreadSocket();
    const input = new PassThrough();
    input.on('data', () => {});
    const handled: string[] = [];
    const flow = new LineBackpressure(input, pipe.writer, (line) => handled.push(line));
    flow.line('a');
    expect(handled).toEqual(['a']);
    const chunk = 'x'.repeat(1024 * 1024);
    while (flow.write(chunk)) {} // until the kernel and the stream buffers are full
    expect(flow.paused).toBe(true);
    expect(input.isPaused()).toBe(true);
    flow.line('b');
    flow.line('c');
    expect(handled).toEqual(['a']);
    expect(flow.heldLines).toBe(2);
    pipe.reader.on('data', () => {});
    pipe.reader.resume();
    await expect.poll(() => handled, { timeout: 10_000 }).toEqual(['a', 'b', 'c']);
    expect(flow.paused).toBe(false);
    expect(input.isPaused()).toBe(false);
    pipe.close();
  });

  it('stops holding input back when released (the output failed: no drain will come)', async () => {
    const pipe = await unreadSocket();
    const input = new PassThrough();
    input.on('data', () => {});
    const handled: string[] = [];
    const flow = new LineBackpressure(input, pipe.writer, (line) => handled.push(line));
    while (flow.write('y'.repeat(1024 * 1024))) {}
    flow.line('held');
    flow.release();
    expect(handled).toEqual(['held']);
    expect(input.isPaused()).toBe(false);
    flow.write('more'); // a write after release never pauses the input again
    expect(input.isPaused()).toBe(false);
    pipe.close();
  });
});
