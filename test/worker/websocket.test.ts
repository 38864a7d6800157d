import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { beforeTool, ORIGIN, rpc, token } from './helpers.js';

const WS_URL = `${ORIGIN}/v1/tenants/acme/hooks/tools/ws`;

/** Opens the client end of an upgraded socket and collects its text frames. */
function open(res: Response) {
  expect(res.status).toBe(101);
  const ws = res.webSocket;
  if (!ws) throw new Error('no webSocket on the 101 response');
  const frames: string[] = [];
  const waiters: Array<() => void> = [];
  let closed: { code: number; reason: string } | undefined;
  ws.addEventListener('message', (evt) => {
    frames.push(String(evt.data));
    for (const w of waiters.splice(0)) w();
  });
  ws.addEventListener('close', (evt) => {
    closed = { code: evt.code, reason: evt.reason };
    for (const w of waiters.splice(0)) w();
  });
  ws.accept();
  return {
    ws,
    get closed() {
      return closed;
    },
    /** Closes from this side and waits for the peer's close frame (the closing handshake). */
    async close(): Promise<{ code: number; reason: string } | undefined> {
      ws.close(1000, 'done');
      const deadline = Date.now() + 15_000;
      while (!closed && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 100);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return closed;
    },
    /** The next frame parsed, waiting up to 15 s (an upper bound: frames take milliseconds). */
    async next(): Promise<any> {
      const deadline = Date.now() + 15_000;
      while (frames.length === 0) {
        if (closed) throw new Error(`socket closed (${closed.code} ${closed.reason})`);
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(
            () => reject(new Error('no frame within 15 s')),
            Math.max(1, deadline - Date.now()),
          );
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return JSON.parse(frames.shift()!);
    },
  };
}

describe('WebSocket on workerd', () => {
  // The first request builds the gateway (and the test runner loads its modules): seconds, once.
  beforeAll(async () => {
    expect((await exports.default.fetch(`${ORIGIN}/healthz`)).status).toBe(200);
  });

  it('answers hook.before_tool sent in one frame with the JSON-RPC response', async () => {
    const res = await exports.default.fetch(WS_URL, {
      headers: { upgrade: 'websocket', authorization: `Bearer ${await token()}` },
    });
    const sock = open(res);
    sock.ws.send(JSON.stringify(rpc('hook.before_tool', beforeTool('get_weather', { city: 'Berlin' }), 41)));
    expect(await sock.next()).toEqual({
      jsonrpc: '2.0',
      id: 41,
      result: {
        action: 'respond',
        result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
      },
    });
    // Policy holds on this transport too, and calls multiplex on one socket.
    sock.ws.send(JSON.stringify(rpc('hook.before_tool', beforeTool('exec'), 42)));
    sock.ws.send('this is not JSON');
    const answers = [await sock.next(), await sock.next()];
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 42, result: { action: 'continue' } });
    expect(answers.find((a) => a.id === null)?.error?.code).toBe(-32700);
    expect(await sock.close()).toMatchObject({ code: 1000 });
  });

  it('takes the token from Sec-WebSocket-Protocol and selects hookgate.v1 only', async () => {
    const res = await exports.default.fetch(WS_URL, {
      headers: { upgrade: 'websocket', 'sec-websocket-protocol': `hookgate.v1, bearer.${await token()}` },
    });
    expect(res.headers.get('sec-websocket-protocol')).toBe('hookgate.v1');
    const sock = open(res);
    sock.ws.send(JSON.stringify(rpc('hook.hello', { name: 'picoclaw', version: 1, modes: ['tool'] }, 1)));
    expect(await sock.next()).toMatchObject({
      id: 1,
      result: { ok: true, name: 'tools', tools: ['get_weather'] },
    });
    expect(await sock.close()).toMatchObject({ code: 1000 });
  });

  it('refuses an upgrade without a valid token before upgrading', async () => {
    const missing = await exports.default.fetch(WS_URL, { headers: { upgrade: 'websocket' } });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const bad = await exports.default.fetch(WS_URL, {
      headers: { upgrade: 'websocket', 'sec-websocket-protocol': 'hookgate.v1, bearer.not-a-token' },
    });
    expect(bad.status).toBe(401);
    expect(bad.webSocket).toBeNull();
  });

  it('answers 426 to a plain GET on the ws route', async () => {
    const res = await exports.default.fetch(WS_URL, {
      headers: { authorization: `Bearer ${await token()}` },
    });
    expect(res.status).toBe(426);
  });

  it('closes the socket with 4001 when the token expires', async () => {
    const res = await exports.default.fetch(WS_URL, {
      headers: { upgrade: 'websocket', authorization: `Bearer ${await token({ ttl: 2 })}` },
    });
    const sock = open(res);
    const deadline = Date.now() + 15_000; // expires at 2 s; an upper bound
    while (!sock.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(sock.closed?.code).toBe(4001);
  });
});
