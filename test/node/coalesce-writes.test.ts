import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { sendCoalesced } from '../../src/node/coalesce-writes.js';

const servers: WebSocketServer[] = [];
afterEach(() =>
  Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => {}),
);

async function connected(): Promise<{ client: WebSocket; received: string[] }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(wss);
  await new Promise((r) => wss.once('listening', r));
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

describe('sendCoalesced', () => {
  it('sends the messages of one tick in one socket write, in order', async () => {
    const { client, received } = await connected();
    const writes = countWrites(client);
    for (let i = 0; i < 10; i++) sendCoalesced(client, `m${i}`);
    await expect.poll(() => received.length).toBe(10);
    expect(received).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect(writes()).toBe(1);
    sendCoalesced(client, 'later');
    await expect.poll(() => received.length).toBe(11);
    expect(writes()).toBe(2);
    client.close();
  });

  it('reports a send failure to the callback, and keeps two sockets of one tick apart', async () => {
    const a = await connected();
    const b = await connected();
    const writesA = countWrites(a.client);
    const writesB = countWrites(b.client);
    sendCoalesced(a.client, 'a1');
    sendCoalesced(b.client, 'b1');
    sendCoalesced(a.client, 'a2');
    await expect.poll(() => [a.received, b.received]).toEqual([['a1', 'a2'], ['b1']]);
    expect([writesA(), writesB()]).toEqual([1, 1]);
    a.client.terminate();
    const err = await new Promise<Error | undefined>((resolve) => sendCoalesced(a.client, 'late', resolve));
    expect(err).toBeInstanceOf(Error);
    b.client.close();
  });

  it('without it, ws writes each message on its own (what it saves)', async () => {
    const { client, received } = await connected();
    const writes = countWrites(client);
    for (let i = 0; i < 10; i++) client.send(`m${i}`);
    await expect.poll(() => received.length).toBe(10);
    expect(writes()).toBe(10);
    client.close();
  });
});
