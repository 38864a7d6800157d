import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpBackend, type HttpBackendOptions } from '../../src/backends/http.js';
import { BackendError, type BackendContext } from '../../src/backends/types.js';
import { createVerifier } from '../../src/core/webhook-signature.js';

const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
const verifier = createVerifier([SECRET]);

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
  verified: boolean;
}

type Handler = (req: Received, res: ServerResponse) => void;

interface TestServer {
  url: string;
  received: Received[];
  connections: number;
  server: Server;
}

const servers: Server[] = [];
const backends: HttpBackend[] = [];

async function startServer(handler: Handler): Promise<TestServer> {
  const state: TestServer = { url: '', received: [], connections: 0, server: undefined as unknown as Server };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const verified = (await verifier.verify(req.headers, body)).ok;
    const received = { headers: req.headers, body, json: JSON.parse(body), verified };
    state.received.push(received);
    handler(received, res);
  });
  server.on('connection', () => state.connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  state.server = server;
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return state;
}

function logger() {
  const warnings: string[] = [];
  const log = { debug() {}, info() {}, warn: (_o: object, m?: string) => warnings.push(m ?? ''), error() {} };
  return { log, warnings };
}

function backend(url: string, options: Partial<HttpBackendOptions> = {}, log = logger().log): HttpBackend {
  const context: BackendContext = { tenant: 'acme', hook: 'weather', modes: ['tool'], log };
  const b = new HttpBackend({ url, secrets: [SECRET], timeoutMs: 5000, ...options }, context);
  backends.push(b);
  return b;
}

function reply(res: ServerResponse, status: number, body: string, type = 'application/json') {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

const ok: Handler = (req, res) =>
  reply(res, 200, JSON.stringify({ jsonrpc: '2.0', id: req.json.id, result: { action: 'continue' } }));

async function errorOf(promise: Promise<unknown>): Promise<BackendError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(BackendError);
    return err as BackendError;
  }
  throw new Error('expected a BackendError');
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(BackendError);
    return (err as BackendError).code;
  }
  throw new Error('expected a BackendError');
}

async function waitFor(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

describe('HttpBackend.call', () => {
  it('POSTs one signed JSON-RPC request and resolves with the raw result', async () => {
    const srv = await startServer(ok);
    const b = backend(srv.url);
    await b.start();
    expect(b.kind).toBe('http');
    expect(b.ready()).toBe(true);
    const params = { tool: 'get_weather', arguments: { city: 'Berlin' } };
    expect(await b.call('hook.before_tool', params, 10_000)).toEqual({ action: 'continue' });
    expect(await b.call('hook.after_tool', {}, 10_000)).toEqual({ action: 'continue' });

    const [first, second] = srv.received;
    expect(first.verified).toBe(true);
    expect(first.json).toEqual({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params });
    expect(second.json.id).toBe(2);
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['webhook-id']).toMatch(/^msg_/);
    expect(second.headers['webhook-id']).not.toBe(first.headers['webhook-id']);
    expect(first.headers['x-hookgate-tenant']).toBe('acme');
    expect(first.headers['x-hookgate-hook']).toBe('weather');
  });

  it('signs with every configured secret while rotating', async () => {
    const other = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    const srv = await startServer(ok);
    const b = backend(srv.url, { secrets: [other, SECRET] });
    await b.call('hook.before_tool', {}, 10_000);
    expect(srv.received[0].headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(srv.received[0].verified).toBe(true);
  });

  it('resolves a null result as null (the gateway judges shapes)', async () => {
    const srv = await startServer((req, res) =>
      reply(res, 200, JSON.stringify({ jsonrpc: '2.0', id: req.json.id, result: null })),
    );
    expect(await backend(srv.url).call('hook.approve_tool', {}, 10_000)).toBeNull();
  });

  it('times out on a server that never answers, at the smaller deadline', async () => {
    const srv = await startServer(() => {});
    // Each call has a 150 ms and a 60 s deadline: only the smaller can end it within the bound,
    // which is far above the 2 x 150 ms a loaded machine may stretch.
    const started = Date.now();
    expect(await codeOf(backend(srv.url, { timeoutMs: 60_000 }).call('hook.before_tool', {}, 150))).toBe(
      'BACKEND_TIMEOUT',
    );
    expect(await codeOf(backend(srv.url, { timeoutMs: 150 }).call('hook.before_tool', {}, 60_000))).toBe(
      'BACKEND_TIMEOUT',
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('times out on a body that stalls after the headers', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",');
    });
    expect(await codeOf(backend(srv.url).call('hook.before_tool', {}, 200))).toBe('BACKEND_TIMEOUT');
  });

  it('maps HTTP 500 to BACKEND_UNAVAILABLE with the status', async () => {
    const srv = await startServer((_req, res) => reply(res, 500, 'boom', 'text/plain'));
    const err = await errorOf(backend(srv.url).call('hook.before_tool', {}, 10_000));
    expect(err.code).toBe('BACKEND_UNAVAILABLE');
    expect(err.message).toContain('HTTP 500');
    expect(srv.received).toHaveLength(1); // calls are never retried
  });

  it('does not follow redirects', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(307, { location: 'http://127.0.0.1:1/elsewhere' });
      res.end();
    });
    const err = await errorOf(backend(srv.url).call('hook.before_tool', {}, 10_000));
    expect(err.code).toBe('BACKEND_UNAVAILABLE');
    expect(err.message).toContain('HTTP 307');
  });

  it('maps a refused connection to BACKEND_UNAVAILABLE', async () => {
    const srv = await startServer(ok);
    const url = srv.url;
    srv.server.close();
    await once(srv.server, 'close');
    expect(await codeOf(backend(url).call('hook.before_tool', {}, 10_000))).toBe('BACKEND_UNAVAILABLE');
  });

  it.each([
    ['an HTML page', () => '<html><body>Bad gateway</body></html>'],
    ['JSON that is not JSON-RPC', () => '{"action":"continue"}'],
    ['a request instead of a response', () => '{"jsonrpc":"2.0","id":1,"method":"x"}'],
    ['a response without result', (id: number) => `{"jsonrpc":"2.0","id":${id}}`],
    ['a mismatched id', (id: number) => `{"jsonrpc":"2.0","id":${id + 100},"result":{}}`],
    ['a string id', (id: number) => `{"jsonrpc":"2.0","id":"${id}","result":{}}`],
    ['an empty body', () => ''],
  ])('maps %s to BACKEND_BAD_REPLY', async (_name, body) => {
    const srv = await startServer((req, res) => reply(res, 200, body(req.json.id)));
    expect(await codeOf(backend(srv.url).call('hook.before_tool', {}, 10_000))).toBe('BACKEND_BAD_REPLY');
  });

  it('refuses a reply over maxResponseBytes', async () => {
    const srv = await startServer((req, res) =>
      reply(res, 200, JSON.stringify({ jsonrpc: '2.0', id: req.json.id, result: { pad: 'x'.repeat(5000) } })),
    );
    const b = backend(srv.url, { maxResponseBytes: 1024 });
    expect(await codeOf(b.call('hook.before_tool', {}, 10_000))).toBe('BACKEND_BAD_REPLY');
  });

  it('refuses a reply that repeats a key (JSON.parse and Go would read it differently)', async () => {
    const srv = await startServer((req, res) =>
      reply(
        res,
        200,
        `{"jsonrpc":"2.0","id":${req.json.id},"result":{"approved":false,"Approved":true,"approved":false}}`,
      ),
    );
    const err = await errorOf(backend(srv.url).call('hook.approve_tool', {}, 10_000));
    expect(err.code).toBe('BACKEND_BAD_REPLY');
    expect(err.message).toContain('"approved"');
  });

  it('takes a reply without "jsonrpc", as PicoClaw does, but only with our id', async () => {
    const srv = await startServer((req, res) =>
      reply(res, 200, `{"id":${req.json.id},"result":{"action":"deny_tool"}}`),
    );
    expect(await backend(srv.url).call('hook.before_tool', {}, 10_000)).toEqual({ action: 'deny_tool' });
    const wrongId = await startServer((req, res) =>
      reply(res, 200, `{"id":"${req.json.id}","result":{"action":"deny_tool"}}`),
    );
    expect(await codeOf(backend(wrongId.url).call('hook.before_tool', {}, 10_000))).toBe('BACKEND_BAD_REPLY');
  });

  it('maps a JSON-RPC error object to BACKEND_ERROR_REPLY', async () => {
    const srv = await startServer((req, res) =>
      reply(
        res,
        200,
        JSON.stringify({ jsonrpc: '2.0', id: req.json.id, error: { code: -32603, message: 'nope' } }),
      ),
    );
    const err = await errorOf(backend(srv.url).call('hook.before_tool', {}, 10_000));
    expect(err.code).toBe('BACKEND_ERROR_REPLY');
    expect(err.message).toContain('nope');
  });

  it('reuses one keep-alive connection for sequential calls', async () => {
    const srv = await startServer(ok);
    const b = backend(srv.url);
    for (let i = 0; i < 25; i++) await b.call('hook.before_tool', { i }, 10_000);
    expect(srv.received).toHaveLength(25);
    expect(srv.connections).toBe(1);
  });

  it('keeps the connection reusable after an error page (the body is drained)', async () => {
    // 20 KB: big enough that undici keeps the socket busy until someone reads the body.
    const page = '<html>' + 'busy '.repeat(4000) + '</html>';
    const srv = await startServer((req, res) =>
      req.json.params.fail ? reply(res, 503, page, 'text/html') : ok(req, res),
    );
    const b = backend(srv.url);
    for (let i = 0; i < 10; i++)
      await b.call('hook.before_tool', { fail: i % 2 === 0 }, 10_000).catch(() => {});
    expect(srv.received).toHaveLength(10);
    expect(srv.connections).toBe(1);
  });

  it('refuses calls after close and aborts calls in flight', async () => {
    const srv = await startServer(() => {});
    const b = backend(srv.url);
    const pending = codeOf(b.call('hook.before_tool', {}, 10_000));
    await waitFor(() => srv.received.length === 1);
    await b.close();
    expect(await pending).toBe('BACKEND_CLOSED');
    expect(await codeOf(b.call('hook.before_tool', {}, 10_000))).toBe('BACKEND_CLOSED');
    expect(b.ready()).toBe(false);
  });

  it('fails fast on bad configuration', () => {
    const ctx: BackendContext = { tenant: 't', hook: 'h', modes: [], log: logger().log };
    expect(() => new HttpBackend({ url: 'not a url', secrets: [SECRET], timeoutMs: 1 }, ctx)).toThrow(
      /valid URL/,
    );
    expect(() => new HttpBackend({ url: 'ftp://x/', secrets: [SECRET], timeoutMs: 1 }, ctx)).toThrow(/http/);
    expect(() => new HttpBackend({ url: 'http://x/', secrets: [], timeoutMs: 1 }, ctx)).toThrow(/secret/);
    expect(() => new HttpBackend({ url: 'http://x/', secrets: ['whsec_x'], timeoutMs: 1 }, ctx)).toThrow();
    expect(() => new HttpBackend({ url: 'http://x/', secrets: [SECRET], timeoutMs: 0 }, ctx)).toThrow(
      /timeoutMs/,
    );
    expect(
      () => new HttpBackend({ url: 'http://x/', secrets: [SECRET], timeoutMs: 1, eventRetries: -1 }, ctx),
    ).toThrow(/eventRetries/);
  });
});

describe('HttpBackend.notify', () => {
  it('sends a signed notification without an id and never throws', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(202);
      res.end();
    });
    const b = backend(srv.url);
    expect(b.notify('hook.runtime_event', { kind: 'agent.turn.start' })).toBeUndefined();
    await waitFor(() => b.eventsInFlight === 0 && srv.received.length === 1);
    expect(srv.received[0].json).toEqual({
      jsonrpc: '2.0',
      method: 'hook.runtime_event',
      params: { kind: 'agent.turn.start' },
    });
    expect('id' in srv.received[0].json).toBe(false);
    expect(srv.received[0].verified).toBe(true);
  });

  it('retries 5xx a bounded number of times with the same webhook-id', async () => {
    const srv = await startServer((_req, res) => reply(res, 503, 'busy', 'text/plain'));
    const { log, warnings } = logger();
    const b = backend(srv.url, { eventRetries: 2, retryBaseMs: 5 }, log);
    b.notify('hook.runtime_event', {});
    await waitFor(() => b.eventsInFlight === 0);
    await new Promise((r) => setTimeout(r, 100)); // nothing else may arrive
    expect(srv.received).toHaveLength(3);
    expect(new Set(srv.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(srv.received.every((r) => r.verified)).toBe(true);
    expect(warnings).toContain('http hook: event not delivered');
  });

  it('retries a refused connection, but never a 4xx', async () => {
    const srv = await startServer((_req, res) => reply(res, 401, '{"error":{}}'));
    const b = backend(srv.url, { eventRetries: 3, retryBaseMs: 5 });
    b.notify('hook.runtime_event', {});
    await waitFor(() => b.eventsInFlight === 0);
    expect(srv.received).toHaveLength(1);

    const gone = await startServer(ok);
    gone.server.close();
    await once(gone.server, 'close');
    const { log, warnings } = logger();
    const b2 = backend(gone.url, { eventRetries: 2, retryBaseMs: 5 }, log);
    b2.notify('hook.runtime_event', {});
    await waitFor(() => b2.eventsInFlight === 0);
    expect(warnings).toEqual(['http hook: event not delivered']);
  });

  it('bounds events in flight: drops and counts the rest', async () => {
    const srv = await startServer(() => {}); // a stuck upstream
    const b = backend(srv.url, { maxEventsInFlight: 4, eventRetries: 0 });
    for (let i = 0; i < 10; i++) b.notify('hook.runtime_event', { i });
    expect(b.eventsInFlight).toBe(4);
    expect(b.droppedEvents).toBe(6);
    await waitFor(() => srv.received.length === 4);
    await b.close();
    await waitFor(() => b.eventsInFlight === 0);
    b.notify('hook.runtime_event', {}); // closed: ignored, no throw
    expect(b.eventsInFlight).toBe(0);
  });

  it('close() stops pending retries', async () => {
    const srv = await startServer((_req, res) => reply(res, 500, 'x', 'text/plain'));
    const b = backend(srv.url, { eventRetries: 5, retryBaseMs: 300 });
    b.notify('hook.runtime_event', {});
    await waitFor(() => srv.received.length === 1);
    await b.close();
    await waitFor(() => b.eventsInFlight === 0);
    await new Promise((r) => setTimeout(r, 700));
    expect(srv.received).toHaveLength(1);
  });
});
