import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { coalesceWrites } from '../../src/node/coalesce-writes.js';

let wss: WebSocketServer | undefined;
afterEach(() => new Promise<void>((r) => (wss ? wss.close(() => r()) : r())));

async function connected(): Promise<{ client: WebSocket; received: string[] }> {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss!.once('listening', r));
  const received: string[] = [];
  wss.on('connection', (ws) => ws.on('message', (d) => received.push(d.toString())));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  await new Promise((r) => client.once('open', r));
  return { client, received };
}

/** Counts the socket-level writes (write and writev) a WebSocket makes. */
function countWrites(ws: WebSocket): () => number {
  const socket = (ws as unknown as { _socket: Socket & Record<string, any> })._socket;
  let n = 0;
  for (const name of ['_write', '_writev']) {
    const original = socket[name].bind(socket);
    socket[name] = (...args: unknown[]) => {
      n++;
      return original(...args);
    };
  }
  return () => n;
}

describe('coalesceWrites', () => {
  it('sends the messages of one tick in one socket write, in order', async () => {
    const { client, received } = await connected();
    coalesceWrites(client);
    const writes = countWrites(client);
    for (let i = 0; i < 10; i++) client.send(`m${i}`);
    await expect.poll(() => received.length).toBe(10);
    expect(received).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect(writes()).toBe(1);
    client.send('later');
    await expect.poll(() => received.length).toBe(11);
    expect(writes()).toBe(2);
    client.close();
  });

  it('without it, ws writes each message on its own (what the wrapper saves)', async () => {
    const { client, received } = await connected();
    const writes = countWrites(client);
    for (let i = 0; i < 10; i++) client.send(`m${i}`);
    await expect.poll(() => received.length).toBe(10);
    expect(writes()).toBe(10);
    client.close();
  });
});
