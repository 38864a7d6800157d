/**
 * The native call route answered straight from node:http (src/node/direct-call-route.ts): which
 * requests it takes, and that a request it takes is answered exactly as the app answers it. The
 * app's answer is had from the same gateway by sending the same body chunked (no Content-Length),
 * which the direct route leaves to the app.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServerWithDirectCalls, directCallRoute } from '../../src/node/direct-call-route.js';
import { createNodeLogger } from '../../src/node/logger.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { CALL_ROUTES } from '../../src/server/call-routes.js';
import { loadCcFixtures } from '../helpers/claude-code-fixtures.js';
import { loadCommandFixtures } from '../helpers/command-host-fixtures.js';
import { preTool } from '../helpers/hermes-payloads.js';
import { loadOcFixtures } from '../helpers/openclaw-fixtures.js';
import { PUSH_NEEDS_A_PERSON } from '../helpers/approvals.js';
import { recorder } from '../helpers/recording-hook.js';

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const MAX_BODY = 16 * 1024;
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    server: { max_body_bytes: MAX_BODY },
    tenants: {
      acme: tenantDoc({
        tools: { ...rec, modes: ['tool', 'observe'], tools: ['get_weather'] },
        guard: {
          ...rec,
          modes: ['tool'],
          rules: [PUSH_NEEDS_A_PERSON],
          timeout_ms: 60_000,
        },
        // One call per 1000 s after a burst of one: the second call is refused.
        limited: { ...rec, modes: ['tool'], limits: { calls_per_second: 0.001, burst: 1 } },
      }),
      other: tenantDoc({ tools: { ...rec, modes: ['tool'], tools: ['get_weather'] } }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = (_method, params) => ({
    action: 'respond',
    result: { for_llm: `weather in ${params?.arguments?.city}` },
  });
});

/** A token the tenant's verifier has verified already (in its cache), as after a first call. */
async function verifiedToken(opts: { tenant?: string; hooks?: string[] } = {}): Promise<string> {
  const token = await gw.token(opts);
  await gw.live.current.verifiers.get(opts.tenant ?? 'acme')!.verify(token);
  return token;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One POST over a real socket, its body with a Content-Length or, `chunked`, without. */
function send(
  url: string,
  path: string,
  body: string | Buffer,
  opts: { token?: string; chunked?: boolean; headers?: Record<string, string>; method?: string } = {},
): Promise<Answer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: opts.method ?? 'POST',
      headers: {
        'content-type': 'application/json',
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.chunked ? {} : { 'content-length': String(bytes.length) }),
        ...opts.headers,
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    if (opts.chunked && bytes.length > 1) {
      // Two writes: Node sends a body without a Content-Length chunked.
      req.write(bytes.subarray(0, 1));
      req.end(bytes.subarray(1));
    } else {
      req.end(bytes);
    }
  });
}

const call = (id: number | string, city: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'hook.before_tool',
    params: { tool: 'get_weather', arguments: { city } },
  });

describe('which requests the direct route takes', () => {
  let url: string;
  let toApp = 0;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const take = directCallRoute({
      live: gw.live,
      gateway: gw.gateway,
      log: createNodeLogger('warn'),
      maxBodyBytes: MAX_BODY,
    });
    // The app's listener here only counts what it is given.
    const server = createServerWithDirectCalls(take)({}, (_req, res) => {
      toApp++;
      _req.resume();
      res.writeHead(299, { 'content-type': 'text/plain' });
      res.end('app');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
  });
  afterAll(() => close?.());

  async function takenByApp(path: string, body: string, opts: Parameters<typeof send>[3]): Promise<boolean> {
    const before = toApp;
    const answer = await send(url, path, body, opts);
    if (answer.status === 299) {
      expect(toApp).toBe(before + 1);
      return true;
    }
    expect(toApp).toBe(before);
    return false;
  }

  it('takes a POST on the exact path with a verified token admitted to the hook, and answers it', async () => {
    const token = await verifiedToken();
    const before = toApp;
    const answer = await send(url, '/v1/tenants/acme/hooks/tools', call(1, 'Oslo'), { token });
    expect(toApp).toBe(before);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { action: 'respond', result: { for_llm: 'weather in Oslo' } },
    });
    expect(recorder().calls).toHaveLength(1);
  });

  it('takes every call route, the native one and each host’s', async () => {
    const token = await verifiedToken();
    for (const dialect of CALL_ROUTES.keys()) {
      const path = `/v1/tenants/acme/hooks/tools${dialect ? `/${dialect}` : ''}`;
      // Not a call of any host: answered 400 by the route, not by the app.
      expect(await takenByApp(path, '{}', { token }), path).toBe(false);
    }
  });

  it('leaves every other request to the app', async () => {
    const token = await verifiedToken();
    const body = call(2, 'Oslo');
    const path = '/v1/tenants/acme/hooks/tools';
    const cases: Array<[string, string, Parameters<typeof send>[3]]> = [
      ['another method', path, { token, method: 'PUT' }],
      ['a path below the hook that is no host', `${path}/mcp`, { token }],
      ['a dialect that does not exist', `${path}/nope`, { token }],
      ['a query string', `${path}?x=1`, { token }],
      ['a trailing slash', `${path}/`, { token }],
      ['a percent-encoded name', '/v1/tenants/acme/hooks/t%6Fols', { token }],
      ['a chunked body', path, { token, chunked: true }],
      ['no token', path, {}],
      ['another scheme', path, { headers: { authorization: `Basic ${token}` } }],
      ['a token not verified yet', path, { token: await gw.token({ hooks: ['tools', 'guard'] }) }],
      ['a token of another tenant', path, { token: await verifiedToken({ tenant: 'other' }) }],
      ['a token that does not allow the hook', path, { token: await verifiedToken({ hooks: ['guard'] }) }],
      ['a hook the tenant does not have', '/v1/tenants/acme/hooks/nope', { token }],
      ['a tenant that does not exist', '/v1/tenants/nobody/hooks/tools', { token }],
    ];
    for (const [what, p, opts] of cases) {
      expect(await takenByApp(p, body, opts), what).toBe(true);
    }
    expect(
      await takenByApp(path, 'x'.repeat(MAX_BODY + 1), { token }),
      'a Content-Length over the limit',
    ).toBe(true);
    expect(recorder().calls, 'the hook was never asked').toHaveLength(0);
  });
});

describe('a call the direct route takes is answered as the app answers it', () => {
  const path = '/v1/tenants/acme/hooks/tools';

  /** The same body both ways; the direct route's answer and the app's. */
  async function both(body: string | Buffer, headers?: Record<string, string>) {
    const token = await verifiedToken();
    const direct = await send(gw.url, path, body, { token, headers });
    const app = await send(gw.url, path, body, { token, headers, chunked: true });
    return { direct, app };
  }

  /** What must match: status, the body (as JSON when it is), and the headers a client reads. */
  function sameAnswer(direct: Answer, app: Answer): void {
    expect(direct.status).toBe(app.status);
    const read = (a: Answer) => (a.body === '' ? '' : JSON.parse(a.body));
    expect(read(direct)).toEqual(read(app));
    for (const name of ['content-type', 'retry-after', 'www-authenticate']) {
      expect(direct.headers[name], name).toEqual(app.headers[name]);
    }
    expect(direct.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  }

  const bodies: Array<[string, string | Buffer]> = [
    ['a call the hook answers', call(7, 'Oslo')],
    ['a call with a string id', call('seven', 'Zürich')],
    ['multi-byte UTF-8', call(8, 'Tōkyō 東京 🌧')],
    [
      'a leading byte-order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(call(9, 'Oslo'))]),
    ],
    [
      'bytes that are not UTF-8',
      Buffer.concat([
        Buffer.from(call(10, 'Oslo').slice(0, -4)),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}}'),
      ]),
    ],
    [
      'a notification',
      JSON.stringify({ jsonrpc: '2.0', method: 'hook.event', params: { kind: 'turn_start' } }),
    ],
    ['malformed JSON', '{"jsonrpc":"2.0","id":1,'],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"hook.hello"}]'],
    ['a response', '{"jsonrpc":"2.0","id":1,"result":{}}'],
    ['params that are not an object', '{"jsonrpc":"2.0","id":1,"method":"hook.before_tool","params":[1]}'],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"hook.before_tool","params":{}}'],
    ['an unknown method', '{"jsonrpc":"2.0","id":3,"method":"hook.nope","params":{}}'],
    ['hello', '{"jsonrpc":"2.0","id":4,"method":"hook.hello","params":{"protocol_version":1}}'],
    ['an empty body', ''],
  ];

  it.each(bodies)('%s', async (_what, body) => {
    const { direct, app } = await both(body);
    sameAnswer(direct, app);
  });

  it('a call refused by a limit: the same 429 with Retry-After', async () => {
    const token = await verifiedToken();
    const limited = '/v1/tenants/acme/hooks/limited';
    const first = await send(gw.url, limited, call(1, 'Oslo'), { token });
    expect(first.status).toBe(200);
    const direct = await send(gw.url, limited, call(2, 'Oslo'), { token });
    const app = await send(gw.url, limited, call(3, 'Oslo'), { token, chunked: true });
    expect(direct.status).toBe(429);
    sameAnswer(direct, app);
    expect(Number(direct.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('echoes a well-formed x-request-id, and gives a malformed one a new id, as the app does', async () => {
    const given = await both(call(11, 'Oslo'), { 'x-request-id': 'trace-42.a:b' });
    expect(given.direct.headers['x-request-id']).toBe('trace-42.a:b');
    expect(given.app.headers['x-request-id']).toBe('trace-42.a:b');
    const bad = await both(call(12, 'Oslo'), { 'x-request-id': 'has spaces and / slashes' });
    for (const answer of [bad.direct, bad.app]) {
      expect(answer.headers['x-request-id']).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
  });

  it('writes the same request log line, without the token', async () => {
    const token = await verifiedToken();
    const id = `direct-log-${Date.now()}`;
    const answer = await send(gw.url, path, call(13, 'Oslo'), { token, headers: { 'x-request-id': id } });
    expect(answer.status).toBe(200);
    const line = gw.logs.lines.find((l) => l.msg === 'request' && l.request_id === id);
    expect(line).toMatchObject({ method: 'POST', path, status: 200 });
    expect(typeof line?.ms).toBe('number');
    expect(gw.logs.text).not.toContain(token);
  });
});

describe('a host route’s call the direct route takes is answered as the app answers it', () => {
  /** Each host's calls as the real host sent them (test/fixtures/), and two bodies that are no host's. */
  const calls: Array<[string, string, string]> = [];
  for (const dialect of CALL_ROUTES.keys()) {
    if (!dialect) continue;
    calls.push([dialect, 'a body that is not JSON', '{"hook_event_name":']);
    calls.push([dialect, 'an object that is no call of the host', '{}']);
  }
  for (const x of loadCcFixtures().exchanges)
    calls.push(['claude-code', `${x.event} #${x.seq}`, JSON.stringify(x.body)]);
  for (const x of loadOcFixtures().exchanges)
    calls.push(['openclaw', `${x.event} #${x.seq}`, JSON.stringify(x.body)]);
  calls.push(['hermes', 'pre_tool_call', JSON.stringify(preTool())]);
  for (const host of ['codex', 'copilot', 'gemini'] as const) {
    for (const x of loadCommandFixtures(host)) calls.push([host, `${x.event} #${x.seq}`, x.stdin]);
  }

  it.each(calls)('%s: %s', async (dialect, _what, body) => {
    recorder().answer = () => ({ action: 'continue' });
    const token = await verifiedToken();
    const path = `/v1/tenants/acme/hooks/tools/${dialect}`;
    const direct = await send(gw.url, path, body, { token });
    const app = await send(gw.url, path, body, { token, chunked: true });
    expect(direct.status).toBe(app.status);
    const read = (a: Answer) => (a.body === '' ? '' : JSON.parse(a.body));
    // Answers that carry the request's id (a decision id) differ in it and nothing else.
    const withoutIds = (v: unknown) =>
      JSON.stringify(v).replace(
        /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g,
        '<id>',
      );
    expect(withoutIds(read(direct))).toBe(withoutIds(read(app)));
    expect(direct.headers['content-type']).toEqual(app.headers['content-type']);
  });
});

describe('a call held for a person on the direct route', () => {
  it('ends when the client goes away before its answer', async () => {
    const token = await verifiedToken();
    recorder().answer = () => ({ action: 'continue' });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'hook.before_tool',
      params: { tool: 'exec', arguments: { command: 'git push origin main' } },
    });
    const req = request(`${gw.url}/v1/tenants/acme/hooks/guard`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    const ended = new Promise<void>((resolve) =>
      req.on('error', () => resolve()).on('close', () => resolve()),
    );
    req.end(body);
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(1);
    req.destroy();
    await ended;
    // The deadline is a minute away: the held call ends now, as abandoned.
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(0);
  });
});
