/**
 * The 2026-07-28 revision on a hook's MCP route, through a real gateway on 127.0.0.1: Claude Code's
 * `server/discover` probe exactly as it sends it, and tools/list and tools/call with the
 * per-request `_meta` envelope (the SDK's own client pinned to the revision, and raw POSTs), with
 * the same policy, audit and limits as the 2025 revisions.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';
import { MODERN, mcpClient, mcpUrl } from './helpers.js';

let gw: TestGateway;
const recording = { type: 'module', module: 'test/helpers/recording-hook.ts' };

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        rec: { backend: recording, tools: ['lookup', 'other'] },
        // One call per ~1000 s after a burst of 1: the second call is over the limit.
        limited: {
          backend: recording,
          modes: ['tool'],
          tools: ['lookup'],
          limits: { calls_per_second: 0.001, burst: 1 },
        },
      }),
    },
  });
});

afterAll(() => gw?.close());

beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = (_method, params) => ({ action: 'respond', result: { for_llm: `ran ${params.tool}` } });
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.328' },
  'io.modelcontextprotocol/clientCapabilities': { roots: {}, elicitation: {} },
};

/** A 2026-07-28 POST as a client sends it: the standard headers mirror the body. */
function modernPost(
  hook: string,
  method: string,
  params: Record<string, unknown>,
  token: string,
  id: unknown = 1,
) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return fetch(mcpUrl(gw, hook), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...name,
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } }),
  });
}

function toolCalls() {
  return recorder().calls.filter((c) => c.method === 'hook.before_tool');
}

describe('MCP 2026-07-28', () => {
  it("answers Claude Code's server/discover probe with 200 and the discover result", async () => {
    const res = await modernPost('rec', 'server/discover', {}, await gw.token(), 'server-discover-probe-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 'server-discover-probe-1',
      result: {
        supportedVersions: [MODERN],
        capabilities: { tools: { listChanged: false } },
        resultType: 'complete',
        // The tools a caller sees depend on its token: nothing here may be shared between callers.
        ttlMs: 0,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'hookgate', version: '0.1.0' } },
      },
    });
    expect(recorder().calls).toEqual([]);
    expect(await gw.metricsText()).toMatch(
      /hookgate_mcp_requests_total\{tenant="acme",hook="rec",method="server\/discover"\} 1\n/,
    );
  });

  it('lists and calls tools for the SDK client pinned to 2026-07-28, through before_tool', async () => {
    const client = await mcpClient(gw, 'rec', { modern: true });
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['lookup', 'other']);
    expect(await client.callTool({ name: 'lookup', arguments: { q: 'x' } })).toMatchObject({
      content: [{ type: 'text', text: 'ran lookup' }],
    });
    expect(toolCalls().map((c) => [c.params.tool, c.params.arguments])).toEqual([['lookup', { q: 'x' }]]);
    await client.close();
  });

  it('answers raw 2026-07-28 tools/list and tools/call with JSON, the list narrowed per token', async () => {
    const narrow = await gw.token({ tools: ['other'] });
    const wide = await gw.token();
    // Interleaved on the one handler: neither caller sees the other's tools.
    const [a, b] = await Promise.all([
      modernPost('rec', 'tools/list', {}, narrow),
      modernPost('rec', 'tools/list', {}, wide),
    ]);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await a.json()) as any).result.tools.map((t: any) => t.name)).toEqual(['other']);
    expect(((await b.json()) as any).result.tools.map((t: any) => t.name)).toEqual(['lookup', 'other']);
    const call = await modernPost('rec', 'tools/call', { name: 'other', arguments: {} }, narrow, 9);
    expect(call.status).toBe(200);
    expect(await call.json()).toMatchObject({
      id: 9,
      result: { content: [{ type: 'text', text: 'ran other' }] },
    });
  });

  it('refuses a tool the token may not use before the hook sees it, and audits it', async () => {
    const client = await mcpClient(gw, 'rec', { modern: true, tools: ['other'] });
    await expect(client.callTool({ name: 'lookup', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool: lookup/),
    });
    expect(toolCalls()).toEqual([]);
    expect(gw.logs.audits()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          hook: 'rec',
          method: 'hook.before_tool',
          tool: 'lookup',
          rule: 'tool_not_granted',
          answered: 'error:unknown_tool',
          dialect: 'mcp',
        }),
      ]),
    );
    await client.close();
  });

  it('answers a tools/call over a hook limit with 429 and Retry-After', async () => {
    const client = await mcpClient(gw, 'limited', { modern: true });
    expect(await client.callTool({ name: 'lookup', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'ran lookup' }],
    });
    await expect(client.callTool({ name: 'lookup', arguments: {} })).rejects.toMatchObject({ status: 429 });
    const res = await modernPost(
      'limited',
      'tools/call',
      { name: 'lookup', arguments: {} },
      await gw.token(),
    );
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({ error: { code: 'too_many_requests' } });
    expect(toolCalls()).toHaveLength(1);
    await client.close();
  });

  it('ends a subscriptions/listen at once: it publishes nothing, so no stream stays open', async () => {
    const res = await modernPost(
      'rec',
      'subscriptions/listen',
      { notifications: { toolsListChanged: true } },
      await gw.token(),
      5,
    );
    expect(res.status).toBe(200);
    // The whole body arrives: the stream ends with the listen's result, nothing honoured.
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(events).toEqual([
      expect.objectContaining({
        method: 'notifications/subscriptions/acknowledged',
        params: expect.objectContaining({ notifications: {} }),
      }),
      expect.objectContaining({ id: 5, result: expect.objectContaining({ resultType: 'complete' }) }),
    ]);
  });

  it('is what a negotiating SDK client settles on', async () => {
    const token = await gw.token();
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'auto', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl(gw, 'rec')), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    await client.close();
  });
});

describe('MCP 2025 revisions on the same URL', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    'serves a %s client statelessly with JSON',
    async (version) => {
      const token = await gw.token({ tools: ['other'] });
      const post = (body: unknown) =>
        fetch(mcpUrl(gw, 'rec'), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': version,
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify(body),
        });
      const init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      });
      expect(init.status).toBe(200);
      expect(init.headers.get('mcp-session-id')).toBeNull();
      expect(await init.json()).toMatchObject({ result: { protocolVersion: version } });
      expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      expect(list.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await list.json()).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: { tools: [{ name: 'other', inputSchema: { type: 'object' } }] },
      });
      const call = await post({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'other', arguments: {} },
      });
      expect(await call.json()).toEqual({
        jsonrpc: '2.0',
        id: 3,
        result: { content: [{ type: 'text', text: 'ran other' }] },
      });
    },
  );
});
