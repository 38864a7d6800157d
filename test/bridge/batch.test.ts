import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointsFromUrl } from '../../src/bridge/index.js';
import { createLogger } from '../../src/bridge/log.js';
import type { Upstream } from '../../src/bridge/upstream.js';
import { AutoUpstream } from '../../src/bridge/upstream-auto.js';
import { WsUpstream } from '../../src/bridge/upstream-ws.js';
import { TestGateway } from './helpers/gateway.js';
import { beforeToolParams, TOKEN } from './helpers/host.js';

/**
 * The calls of one stdin chunk leave in one socket write, made before batch() returns (no tick
 * later), against a real gateway socket.
 */

const gateways: TestGateway[] = [];
const upstreams: Upstream[] = [];
afterEach(async () => {
  for (const u of upstreams.splice(0)) await u.close();
  for (const g of gateways.splice(0)) await g.kill();
});

const log = createLogger({ write() {} }, 'error', []);

async function gateway(): Promise<TestGateway> {
  const g = await TestGateway.start({ token: TOKEN, handler: () => ({ result: { action: 'continue' } }) });
  gateways.push(g);
  return g;
}

/** Counts the socket-level writes (write and writev) of the WebSocket a WsUpstream holds open. */
function countWrites(upstream: WsUpstream): () => number {
  const transport = (upstream as unknown as { transport: { ws: { _socket: Socket } } }).transport;
  const socket = transport.ws._socket as Socket & Record<string, (...a: unknown[]) => unknown>;
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

const callOf = (upstream: Upstream) => upstream.call('hook.before_tool', beforeToolParams('exec'), 5000);

describe('Upstream.batch', () => {
  it('WebSocket: the calls made inside are written together before it returns', async () => {
    const gw = await gateway();
    const up = new WsUpstream({ url: gw.wsUrl, token: TOKEN, log });
    upstreams.push(up);
    up.start();
    expect(await up.ready(10_000)).toBe(true);
    const writes = countWrites(up);
    const answers: Promise<unknown>[] = [];
    up.batch(() => {
      for (let i = 0; i < 5; i++) answers.push(callOf(up));
    });
    expect(writes()).toBe(1);
    expect(await Promise.all(answers)).toEqual(Array(5).fill({ action: 'continue' }));
    // Outside a batch a send still waits for the end of the tick, with the others of that tick.
    const later = [callOf(up), callOf(up)];
    expect(writes()).toBe(1);
    await Promise.all(later);
    expect(writes()).toBe(2);
    expect(gw.calls).toHaveLength(7);
  });

  it('auto, with the WebSocket open: a call is sent in the turn it is made, so a batch holds it', async () => {
    const gw = await gateway();
    const { wsUrl, httpUrl } = endpointsFromUrl(gw.wsUrl);
    const up = new AutoUpstream({ wsUrl, httpUrl, token: TOKEN, log });
    upstreams.push(up);
    up.start();
    const ws = (up as unknown as { ws: WsUpstream }).ws;
    expect(await ws.ready(10_000)).toBe(true);
    const writes = countWrites(ws);
    const answers: Promise<unknown>[] = [];
    up.batch(() => {
      answers.push(callOf(up), callOf(up));
    });
    expect(writes()).toBe(1);
    expect(await Promise.all(answers)).toEqual([{ action: 'continue' }, { action: 'continue' }]);
    expect(gw.calls.map((c) => c.via)).toEqual(['ws', 'ws']);
  });
});
