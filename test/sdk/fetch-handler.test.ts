import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import weather from '../../examples/weather-sdk.js';
import { HttpBackend } from '../../src/backends/http.js';
import { createSigner, newWebhookId } from '../../src/core/webhook-signature.js';
import { defineHook, type FetchHandler, toFetchHandler } from '../../src/sdk/index.js';

const SECRET = 'whsec_' + Buffer.alloc(32, 3).toString('base64');
const OTHER = 'whsec_' + Buffer.alloc(32, 4).toString('base64');
const URL_ = 'https://hooks.example/weather';

const beforeTool = (id: number | string, city: unknown = 'Berlin') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'hook.before_tool',
    params: { tool: 'get_weather', arguments: { city } },
  });

interface SignOptions {
  secret?: string;
  id?: string;
  timestamp?: number;
  method?: string;
  omit?: string;
}

async function signed(body: string, o: SignOptions = {}): Promise<Request> {
  const id = o.id ?? newWebhookId();
  const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await createSigner([o.secret ?? SECRET]).sign(id, timestamp, body),
  };
  if (o.omit) delete headers[o.omit];
  return new Request(URL_, { method: o.method ?? 'POST', headers, body });
}

async function errorCode(response: Response): Promise<string> {
  expect(response.headers.get('content-type')).toBe('application/json');
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(typeof body.error.message).toBe('string');
  return body.error.code;
}

afterEach(() => vi.useRealTimers());

describe('toFetchHandler: a valid call', () => {
  it('answers a signed JSON-RPC request with the hook result', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET });
    const response = await handle(await signed(beforeTool(7)));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        action: 'respond',
        result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
      },
    });
  });

  it('accepts any secret of a rotation list', async () => {
    const handle = toFetchHandler(weather, { secret: [OTHER, SECRET] });
    expect((await handle(await signed(beforeTool(1), { secret: SECRET }))).status).toBe(200);
    expect((await handle(await signed(beforeTool(2), { secret: OTHER }))).status).toBe(200);
  });

  it('answers notifications with 202 and an empty body, after running onEvent', async () => {
    const events: unknown[] = [];
    const hook = defineHook({ name: 'obs', onEvent: (p) => void events.push(p) });
    const handle = toFetchHandler(hook, { secret: SECRET });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method: 'hook.runtime_event',
      params: { kind: 'agent.turn.start' },
    });
    const response = await handle(await signed(body));
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
    expect(events).toEqual([{ kind: 'agent.turn.start' }]);
  });

  it('reports a throwing notification handler to onError and still answers 202', async () => {
    const errors: string[] = [];
    const hook = defineHook({
      name: 'obs',
      onEvent: () => {
        throw new Error('observer broke');
      },
    });
    const handle = toFetchHandler(hook, { secret: SECRET, onError: (e) => errors.push(String(e)) });
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'hook.runtime_event', params: {} });
    expect((await handle(await signed(body))).status).toBe(202);
    expect(errors).toEqual(['Error: observer broke']);
  });

  it('answers protocol errors as JSON-RPC errors inside 200', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET });
    const notJson = await handle(await signed('{"jsonrpc":'));
    expect(notJson.status).toBe(200);
    expect(await notJson.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const unknown = await handle(
      await signed(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'hook.nope' })),
    );
    expect(await unknown.json()).toMatchObject({ id: 3, error: { code: -32601 } });
    const response = await handle(await signed(JSON.stringify({ jsonrpc: '2.0', id: 4, result: {} })));
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
    const approve = await handle(
      await signed(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'hook.approve_tool' })),
    );
    expect(await approve.json()).toMatchObject({ id: 5, error: { code: -32601 } });
  });
});

describe('toFetchHandler: refusals', () => {
  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
    'refuses a request without %s',
    async (h) => {
      const handle = toFetchHandler(weather, { secret: SECRET });
      const response = await handle(await signed(beforeTool(1), { omit: h }));
      expect(response.status).toBe(401);
      expect(await errorCode(response)).toBe('SIGNATURE_MISSING');
    },
  );

  it('refuses a wrong secret and a tampered body', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET });
    const wrong = await handle(await signed(beforeTool(1), { secret: OTHER }));
    expect(wrong.status).toBe(401);
    expect(await errorCode(wrong)).toBe('SIGNATURE_INVALID');

    const good = await signed(beforeTool(1, 'Berlin'));
    const tampered = new Request(URL_, {
      method: 'POST',
      headers: good.headers,
      body: beforeTool(1, 'Paris'),
    });
    const response = await handle(tampered);
    expect(response.status).toBe(401);
    expect(await errorCode(response)).toBe('SIGNATURE_INVALID');
  });

  it('refuses timestamps more than 5 minutes off, both ways', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET });
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 330, now + 330]) {
      const response = await handle(await signed(beforeTool(1), { timestamp }));
      expect(response.status).toBe(401);
      expect(await errorCode(response)).toBe('TIMESTAMP_STALE');
    }
    expect((await handle(await signed(beforeTool(1), { timestamp: now - 270 }))).status).toBe(200);
  });

  it('refuses a replayed webhook-id while its signature could still verify', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-13T10:00:00Z'));
    const handle = toFetchHandler(weather, { secret: SECRET });
    const request = await signed(beforeTool(1), { id: 'msg_once' });
    const replay = request.clone();
    expect((await handle(request)).status).toBe(200);
    const refused = await handle(replay);
    expect(refused.status).toBe(401);
    expect(await errorCode(refused)).toBe('SIGNATURE_REPLAYED');
    // Re-signed with a fresh timestamp, the same id is still a duplicate delivery.
    expect((await handle(await signed(beforeTool(1), { id: 'msg_once' }))).status).toBe(401);

    // Once the window has passed the id is forgotten (the old request is now stale anyway).
    vi.setSystemTime(new Date('2026-06-13T10:05:02Z'));
    expect((await handle(await signed(beforeTool(1), { id: 'msg_once' }))).status).toBe(200);
  });

  it('does not let a request with a bad signature burn a delivery id', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET });
    expect((await handle(await signed(beforeTool(1), { id: 'msg_x', secret: OTHER }))).status).toBe(401);
    expect((await handle(await signed(beforeTool(1), { id: 'msg_x' }))).status).toBe(200);
  });

  it('bounds the replay memory, forgetting the oldest id first', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET, replayCacheSize: 2 });
    for (const id of ['msg_a', 'msg_b', 'msg_c']) {
      expect((await handle(await signed(beforeTool(1), { id }))).status).toBe(200);
    }
    expect((await handle(await signed(beforeTool(1), { id: 'msg_c' }))).status).toBe(401);
    expect((await handle(await signed(beforeTool(1), { id: 'msg_a' }))).status).toBe(200);
  });

  it('only accepts POST', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET });
    const response = await handle(new Request(URL_, { method: 'GET' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await errorCode(response)).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers 413 past the body cap, declared or streamed', async () => {
    const handle = toFetchHandler(weather, { secret: SECRET, maxBodyBytes: 1024 });
    const big = beforeTool(1, 'x'.repeat(2000));
    const streamed = await handle(await signed(big));
    expect(streamed.status).toBe(413);
    expect(await errorCode(streamed)).toBe('BODY_TOO_LARGE');
    const declared = await signed(big);
    const withLength = new Request(URL_, {
      method: 'POST',
      headers: { ...Object.fromEntries(declared.headers), 'content-length': String(big.length) },
      body: big,
    });
    expect((await handle(withLength)).status).toBe(413);
    expect((await handle(await signed(beforeTool(1)))).status).toBe(200);
  });

  it('fails fast on a bad secret', () => {
    expect(() => toFetchHandler(weather, { secret: 'hunter2' })).toThrow(/whsec_/);
    expect(() => toFetchHandler(weather, { secret: [] })).toThrow(/at least one/);
  });
});

describe('toFetchHandler behind node:http, called by HttpBackend', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  async function serve(handle: FetchHandler): Promise<string> {
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const response = await handle(
        new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          headers,
          body: Buffer.concat(chunks),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it('interoperates: calls, tenant context and events', async () => {
    const seen: string[] = [];
    const hook = defineHook({
      name: 'w',
      afterTool: (_p, ctx) => {
        seen.push(`${ctx.tenant}/${ctx.hook}`);
        return { action: 'continue' };
      },
      onEvent: (p) => void seen.push(p.kind),
    });
    const url = await serve(toFetchHandler(hook, { secret: SECRET }));
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const backend = new HttpBackend(
      { url, secrets: [SECRET], timeoutMs: 10_000 },
      { tenant: 'acme', hook: 'w', modes: ['tool', 'observe'], log },
    );
    expect(await backend.call('hook.after_tool', {}, 10_000)).toEqual({ action: 'continue' });
    backend.notify('hook.runtime_event', { kind: 'agent.turn.end' });
    await expect.poll(() => backend.eventsInFlight).toBe(0);
    expect(seen).toEqual(['acme/w', 'agent.turn.end']);
    await backend.close();
  });
});
