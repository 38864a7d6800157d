/**
 * The MCP route as an HTTP surface, through a real gateway on 127.0.0.1: the same authentication
 * answers as the hook-protocol route (401 with WWW-Authenticate, 403), limits answered 429 with
 * Retry-After, the methods a stateless server does not serve, bad bodies, and the describe route.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';
import { mcpClient, mcpPost, mcpUrl } from './helpers.js';

let gw: TestGateway;
const recording = { type: 'module', module: 'test/helpers/recording-hook.ts' };

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        rec: { backend: recording, tools: ['lookup'] },
        // One call per ~1000 s after a burst of 1: the second call is over the limit.
        limited: {
          backend: recording,
          modes: ['tool'],
          tools: ['lookup'],
          limits: { calls_per_second: 0.001, burst: 1 },
        },
        // Intercepts llm calls, so tools/list asks it (once) for what it injects.
        asked: { backend: recording, tools: ['lookup'], limits: { calls_per_second: 0.001, burst: 1 } },
      }),
      other: tenantDoc({ rec: { backend: recording, tools: ['lookup'] } }),
    },
  });
});

afterAll(() => gw?.close());

beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'respond', result: { for_llm: 'ok' } });
});

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

describe('MCP route auth', () => {
  it('answers 401 with WWW-Authenticate: Bearer without a token, exactly as the native route', async () => {
    const mcp = await mcpPost(gw, 'rec', list);
    const native = await gw.post('acme', 'rec', { jsonrpc: '2.0', id: 1, method: 'hook.hello', params: {} });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toBe(native.headers.get('www-authenticate'));
    expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer realm="hookgate", error="invalid_token"/);
    expect(await mcp.json()).toEqual(await native.json());
    // The SDK client sees the 401 and does not connect.
    await expect(mcpClient(gw, 'rec', { token: null })).rejects.toMatchObject({ status: 401 });
  });

  it('answers 401 for a bad token', async () => {
    const res = await mcpPost(gw, 'rec', list, 'not-a-jwt');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('answers 403 for a token of another hook or another tenant, and the hook never hears of it', async () => {
    const otherHook = await gw.token({ hooks: ['limited'] });
    const res = await mcpPost(gw, 'rec', list, otherHook);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: { code: 'forbidden', message: 'token does not allow hook "rec"' },
    });
    await expect(mcpClient(gw, 'rec', { token: otherHook })).rejects.toMatchObject({ status: 403 });
    const otherTenant = await gw.token({ tenant: 'other' });
    // Signed with the same test key, claiming tenant "other": refused on acme's hook.
    expect((await mcpPost(gw, 'rec', list, otherTenant)).status).toBe(403);
    expect(recorder().calls).toEqual([]);
  });
});

describe('MCP route limits', () => {
  it('answers a tools/call over a hook limit with 429 and Retry-After, as the native route', async () => {
    const client = await mcpClient(gw, 'limited');
    expect(await client.callTool({ name: 'lookup', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'ok' }],
    });
    await expect(client.callTool({ name: 'lookup', arguments: {} })).rejects.toMatchObject({ status: 429 });
    const token = await gw.token();
    const res = await mcpPost(
      gw,
      'limited',
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lookup', arguments: {} } },
      token,
    );
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({ error: { code: 'too_many_requests' } });
    expect(recorder().calls.filter((c) => c.method === 'hook.before_tool')).toHaveLength(1);
    await client.close();
  });

  it('answers tools/list with 429 when asking the hook for its tools is over its limit', async () => {
    const client = await mcpClient(gw, 'asked');
    await client.callTool({ name: 'lookup', arguments: {} });
    await expect(client.listTools()).rejects.toMatchObject({ status: 429 });
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
    await client.close();
  });

  it('answers a refused call inside a batch in place, so the others keep their answers', async () => {
    const token = await gw.token();
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'lookup', arguments: {} },
    });
    const res = await mcpPost(gw, 'limited', [list, call(2)], token);
    expect(res.status).toBe(200);
    const answers = (await res.json()) as any[];
    expect(answers.find((a) => a.id === 1).result.tools).toEqual([
      { name: 'lookup', inputSchema: { type: 'object' } },
    ]);
    expect(answers.find((a) => a.id === 2).error).toMatchObject({
      message: expect.stringMatching(/rate limited \(hook_rate\)/),
      data: { retry_after_ms: expect.any(Number) },
    });
  });
});

describe('MCP route transport', () => {
  it('answers GET and DELETE with 405 Allow: POST (a stateless server: no stream, no session)', async () => {
    const token = await gw.token();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(mcpUrl(gw, 'rec'), {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
    // Still authenticated first.
    expect((await fetch(mcpUrl(gw, 'rec'))).status).toBe(401);
  });

  it('answers a body that is not JSON with a JSON-RPC parse error, and one over max_body_bytes with 413', async () => {
    const token = await gw.token();
    const bad = await mcpPost(gw, 'rec', '{"jsonrpc":', token);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const big = await mcpPost(gw, 'rec', { ...list, params: { pad: 'x'.repeat(9 * 1024 * 1024) } }, token);
    expect(big.status).toBe(413);
  });

  it('refuses a batch of more than 100 messages from its 101st element on, before parsing the rest', async () => {
    const token = await gw.token();
    const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
    const pings = (n: number) => Array.from({ length: n }, (_, i) => ping(i + 1)).join(',');
    // What follows element 101 is never read: not even its being no JSON makes a parse error.
    const over = await mcpPost(gw, 'rec', `[${pings(101)}, this is not JSON`, token);
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: Batch must not exceed 100 messages' },
    });
    // 100 are served, each answered.
    const full = await mcpPost(gw, 'rec', `[${pings(100)}]`, token);
    expect(full.status).toBe(200);
    expect(((await full.json()) as unknown[]).length).toBe(100);
  });

  it('answers stateless JSON: no session id, application/json', async () => {
    const token = await gw.token();
    const res = await mcpPost(
      gw,
      'rec',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'curl', version: '1' },
        },
      },
      token,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toMatchObject({
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'hookgate' },
      },
    });
    expect(await gw.metricsText()).toMatch(
      /hookgate_mcp_requests_total\{tenant="acme",hook="rec",method="initialize"\} 1\n/,
    );
  });

  it('is listed by the describe route', async () => {
    const token = await gw.token();
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/rec`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await res.json()).toMatchObject({ mcp: '/v1/tenants/acme/hooks/rec/mcp' });
  });
});
