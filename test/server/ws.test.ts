import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { paramsFrom } from '../policy/helpers.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, tools: ['get_weather'] };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    server: { max_body_bytes: 32 * 1024, max_in_flight: 4, ws_ping_interval_ms: 150 },
    tenants: {
      acme: tenantDoc({ h: { ...rec, modes: ['tool', 'observe', 'approve'] } }),
      globex: tenantDoc({ h: rec }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = (m, p) =>
    m === 'hook.before_tool' && p.tool === 'get_weather'
      ? { action: 'respond', result: { for_llm: 'sunny' } }
      : { action: 'continue' };
});

const wsUrl = (tenant = 'acme', hook = 'h') =>
  `${gw.url.replace('http', 'ws')}/v1/tenants/${tenant}/hooks/${hook}/ws`;

/** A client that collects messages and lets a test await the answer to an id. */
async function connect(
  opts: { token?: string; protocols?: string[]; wsOptions?: WebSocket.ClientOptions } = {},
) {
  const token = opts.token ?? (await gw.token());
  const ws = new WebSocket(
    wsUrl(),
    opts.protocols,
    opts.protocols ? opts.wsOptions : { headers: { authorization: `Bearer ${token}` }, ...opts.wsOptions },
  );
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const answer = (id: unknown) =>
    expect
      .poll(() => messages.find((m) => m.id === id))
      .toBeTruthy()
      .then(() => messages.find((m) => m.id === id));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { ws, messages, answer, closed };
}

function upgradeStatus(headers: Record<string, string>, tenant = 'acme', protocols?: string[]) {
  return new Promise<{ status: number; www?: string }>((resolve) => {
    const ws = new WebSocket(wsUrl(tenant), protocols, { headers });
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, www: res.headers['www-authenticate'] as string | undefined });
      ws.terminate();
    });
    ws.on('open', () => {
      resolve({ status: 101 });
      ws.close();
    });
    ws.on('error', () => {});
  });
}

const call = (id: number, tool = 'get_weather') =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'hook.before_tool', params: { tool } });

describe('WebSocket endpoint', () => {
  it('refuses the upgrade with 401 + WWW-Authenticate without a token, 403 for another tenant', async () => {
    const none = await upgradeStatus({});
    expect(none.status).toBe(401);
    expect(none.www).toMatch(/^Bearer/);
    // Both test tenants share a key, so these tokens verify and are refused for naming another tenant.
    const other = await gw.token({ tenant: 'globex' });
    expect((await upgradeStatus({ authorization: `Bearer ${other}` }, 'acme')).status).toBe(403);
    const acmeToken = await gw.token({ tenant: 'acme' });
    expect((await upgradeStatus({ authorization: `Bearer ${acmeToken}` }, 'globex')).status).toBe(403);
    expect((await upgradeStatus({ authorization: 'Bearer nope' }, 'acme')).status).toBe(401);
  });

  it('answers many calls in flight on one socket, matched by id; notifications get no answer', async () => {
    const c = await connect();
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'hook.runtime_event', params: { id: 'evt-1' } }));
    for (let i = 1; i <= 4; i++) c.ws.send(call(i, i % 2 ? 'get_weather' : 'exec'));
    for (let i = 1; i <= 4; i++) {
      const m = await c.answer(i);
      expect(m.result.action).toBe(i % 2 ? 'respond' : 'continue');
    }
    // The notification reached the hook; a call sent after it is answered, and nothing else came.
    await expect.poll(() => recorder().calls.some((x) => x.method === 'hook.runtime_event')).toBe(true);
    c.ws.send(call(5, 'exec'));
    await c.answer(5);
    expect(c.messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4, 5]);
    c.ws.close();
  });

  it('accepts the token as a Sec-WebSocket-Protocol entry and selects hookgate.v1, never logging it', async () => {
    const token = await gw.token();
    const c = await connect({ protocols: ['hookgate.v1', `bearer.${token}`] });
    expect(c.ws.protocol).toBe('hookgate.v1');
    c.ws.send(call(1));
    expect((await c.answer(1)).result.action).toBe('respond');
    c.ws.close();
    expect(gw.logs.text).not.toContain(token.split('.')[2]);
  });

  it('answers a frame that is not JSON-RPC with a JSON-RPC error and keeps the socket open', async () => {
    const c = await connect();
    c.ws.send('{nope');
    c.ws.send(JSON.stringify({ hello: 'world' }));
    c.ws.send(Buffer.from([1, 2, 3]));
    await expect.poll(() => c.messages.length).toBe(3);
    expect(c.messages.map((m) => m.error.code)).toEqual([-32700, -32600, -32600]);
    c.ws.send(call(9));
    expect((await c.answer(9)).result.action).toBe('respond');
    c.ws.close();
  });

  it('closes a socket that sends a frame over the size limit with 1009, and only that socket', async () => {
    const a = await connect();
    const b = await connect();
    a.ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'hook.before_tool',
        params: { x: 'y'.repeat(40 * 1024) },
      }),
    );
    expect((await a.closed).code).toBe(1009);
    b.ws.send(call(2));
    expect((await b.answer(2)).result.action).toBe('respond');
    b.ws.close();
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });

  it('refuses calls beyond the in-flight bound with a JSON-RPC error instead of queueing them', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    recorder().answer = async () => {
      await gate;
      return { action: 'continue' };
    };
    const c = await connect();
    for (let i = 1; i <= 10; i++) c.ws.send(call(i, 'exec'));
    await expect.poll(() => c.messages.length).toBe(6);
    expect(c.messages.every((m) => m.error?.code === -32001)).toBe(true);
    release();
    await expect.poll(() => c.messages.length).toBe(10);
    expect(
      c.messages
        .filter((m) => m.result)
        .map((m) => m.id)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    c.ws.close();
  });

  it('closes the socket with 4001 "token expired" when the token expires', async () => {
    const token = await gw.token({ ttlSeconds: 1 });
    const c = await connect({ token });
    const closed = await c.closed;
    expect(closed).toEqual({ code: 4001, reason: 'token expired' });
  });

  it('terminates a peer that stops answering pings', async () => {
    // A peer that answers, connected as long: the silent one is closed for its silence, not its age.
    const answering = await connect();
    const c = await connect({ wsOptions: { autoPong: false } });
    const started = Date.now();
    // Terminated (1006: no close frame), not closed for the token (4001, after its 600 s) or by shutdown.
    expect((await c.closed).code).toBe(1006);
    // Within a few 150 ms ping sweeps; far below the token's lifetime whatever the load.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(answering.ws.readyState).toBe(WebSocket.OPEN);
    answering.ws.close();
  });
});

describe('graceful shutdown', () => {
  it('finishes calls in flight, then closes sockets with 1001', async () => {
    const own = await startTestGateway({ tenants: { acme: tenantDoc({ h: { ...rec, modes: ['tool'] } }) } });
    // Held until the gateway is shutting down: the call is in flight when close() starts.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    recorder().answer = async () => {
      await held;
      return { action: 'respond', result: { for_llm: 'late' } };
    };
    const ws = new WebSocket(`${own.url.replace('http', 'ws')}/v1/tenants/acme/hooks/h/ws`, {
      headers: { authorization: `Bearer ${await own.token()}` },
    });
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'hook.before_tool',
        params: paramsFrom('10-before-tool-respond-plugin-tool.jsonl', 'hook.before_tool'),
      }),
    );
    await expect.poll(() => recorder().calls.length).toBe(1);
    const closing = own.close();
    release();
    await closing;
    expect(own.logs.lines).toContainEqual(
      expect.objectContaining({
        msg: 'shutting down: answering the calls in flight',
        in_flight: expect.objectContaining({ ws_calls: 1 }),
      }),
    );
    expect(await closed).toBe(1001);
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: { action: 'respond', result: { for_llm: 'late' } } },
    ]);
  });
});

describe('backpressure', () => {
  it('a peer that stops reading its answers is closed as a slow consumer instead of queueing without bound', async () => {
    const own = await startTestGateway(
      { server: { max_in_flight: 1000 }, tenants: { acme: tenantDoc({ h: { ...rec, modes: ['tool'] } }) } },
      { wsHighWaterBytes: 256 * 1024 },
    );
    const big = 'x'.repeat(64 * 1024);
    recorder().answer = () => ({ action: 'respond', result: { for_llm: big } });
    try {
      const ws = new WebSocket(`${own.url.replace('http', 'ws')}/v1/tenants/acme/hooks/h/ws`, {
        headers: { authorization: `Bearer ${await own.token()}` },
      });
      await new Promise((r) => ws.once('open', r));
      const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket;
      socket.pause();
      const sent = 400;
      for (let i = 1; i <= sent; i++) ws.send(call(i));
      // The gateway gave up on the unread answers (its close frame waits, unread, behind them).
      await expect
        .poll(() =>
          own.logs.lines.some((l) => l.msg === 'closing a WebSocket that does not read its answers'),
        )
        .toBe(true);
      expect(own.sessions.size).toBe(1);
      const messages: any[] = [];
      ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
      const closed = new Promise<{ code: number; reason: string }>((r) =>
        ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
      );
      socket.resume();
      // 400 × 64 KiB would be 25 MiB queued; the gateway stops near four times its high-water mark.
      // 1013 Try Again Later: reconnect; not 1008, which a client takes for a refused token.
      expect(await closed).toEqual({ code: 1013, reason: 'slow consumer' });
      const answered = messages.filter((m) => m.result).length;
      expect(answered).toBeGreaterThan(0);
      // What got through is what the kernel's socket buffers held plus the gateway's own bound.
      expect(answered).toBeLessThan(sent / 2);
      expect((await fetch(`${own.url}/healthz`)).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
