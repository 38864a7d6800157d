/**
 * The route answers a plain 2025-era tools/call without the SDK (src/mcp/direct-call.ts). Every
 * request here goes through the service twice, with that answer and with the SDK alone, and the
 * two answers must be the same bytes, status and content type; the hook must be asked exactly
 * once either way. The requests cover the plain shape and its near misses, the outcomes every
 * answer kind the handler produces (text, error text, media, unknown tool, a limit, a throw).
 */
import { describe, expect, it } from 'vitest';
import { plainToolCall } from '../../src/mcp/direct-call.js';
import { InjectedToolsCache } from '../../src/mcp/injected-tools.js';
import type { HookCallOutcome, McpHookPort } from '../../src/mcp/port.js';
import { type McpAnswer, mcpService } from '../../src/mcp/server.js';

type Outcome = HookCallOutcome | 'throw';

function port(outcome: Outcome, asked: { n: number }): McpHookPort {
  return {
    hook: 'rec',
    tools: new Set(['lookup']),
    configured: new Map(),
    declared: () => undefined,
    admits: (params) => params.tool === 'lookup',
    async beforeTool() {
      asked.n++;
      if (outcome === 'throw') throw new Error('backend exploded');
      return outcome;
    },
  };
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

function request(body: string, headers: Record<string, string | undefined>): Request {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) h[k] = v;
  return new Request('http://127.0.0.1/v1/tenants/acme/hooks/rec/mcp', { method: 'POST', body, headers: h });
}

async function answerOf(a: McpAnswer) {
  if ('limited' in a) return { limited: a.limited };
  return {
    status: a.response.status,
    type: a.response.headers.get('content-type'),
    requestId: a.response.headers.get('x-request-id'),
    body: await a.response.text(),
  };
}

async function both(body: unknown, outcome: Outcome, headers: Record<string, string | undefined> = HEADERS) {
  const text = JSON.stringify(body);
  const out = [];
  for (const direct of [true, false]) {
    const service = mcpService(new InjectedToolsCache(), { direct });
    const asked = { n: 0 };
    const answer = await service.serve(
      request(text, headers),
      JSON.parse(text),
      port(outcome, asked),
      'req-1',
    );
    out.push({ answer: await answerOf(answer), asked: asked.n });
    await service.close();
  }
  return { direct: out[0], sdk: out[1] };
}

const call = (params: unknown, extra: object = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params,
  ...extra,
});
const ANSWER = (result: object): Outcome => ({ answer: { action: 'respond', result } });

describe('a plain tools/call answered without the SDK', () => {
  const outcomes: [string, Outcome][] = [
    ['text', ANSWER({ for_llm: 'Sunny, 21°C in "Berlin" \u2028 ✓' })],
    ['is_error', ANSWER({ for_llm: 'no such city', is_error: true })],
    ['media', ANSWER({ for_llm: 'a map', media: ['data:image/png;base64,AAAA', 'media://x/map.png'] })],
    ['continue (not answered)', { answer: { action: 'continue' } }],
    ['failure', { answer: { action: 'continue' }, failure: 'timeout' }],
    ['limited', { limited: { limit: 'hook_rate', retryAfterMs: 250 } }],
    ['a throwing backend', 'throw'],
  ];
  for (const [name, outcome] of outcomes) {
    it(`answers ${name} as the SDK does`, async () => {
      const { direct, sdk } = await both(call({ name: 'lookup', arguments: { q: 'x' } }), outcome);
      expect(direct).toEqual(sdk);
      expect(direct.asked).toBe(1);
    });
  }

  it('answers an unknown tool as the SDK does, without asking the hook', async () => {
    const { direct, sdk } = await both(call({ name: 'nope', arguments: {} }), ANSWER({ for_llm: 'x' }));
    expect(direct).toEqual(sdk);
    expect(direct.asked).toBe(0);
  });

  const ok = ANSWER({ for_llm: 'ok' });
  const cases: [string, unknown, Record<string, string | undefined>?][] = [
    ['no arguments', call({ name: 'lookup' })],
    ['a string id', { ...call({ name: 'lookup', arguments: {} }), id: 'abc' }],
    [
      'no protocol header',
      call({ name: 'lookup', arguments: {} }),
      { ...HEADERS, 'mcp-protocol-version': undefined },
    ],
    [
      'an older revision',
      call({ name: 'lookup', arguments: {} }),
      { ...HEADERS, 'mcp-protocol-version': '2025-03-26' },
    ],
    // Near misses: the SDK answers these (some with errors), and the same way both times.
    [
      'an unknown revision',
      call({ name: 'lookup', arguments: {} }),
      { ...HEADERS, 'mcp-protocol-version': '2099-01-01' },
    ],
    [
      'the modern header',
      call({ name: 'lookup', arguments: {} }),
      { ...HEADERS, 'mcp-protocol-version': '2026-07-28' },
    ],
    [
      'accept without SSE',
      call({ name: 'lookup', arguments: {} }),
      { ...HEADERS, accept: 'application/json' },
    ],
    [
      'a text body type',
      call({ name: 'lookup', arguments: {} }),
      { ...HEADERS, 'content-type': 'text/plain' },
    ],
    ['a fractional id', { ...call({ name: 'lookup', arguments: {} }), id: 1.5 }],
    ['a null id', { ...call({ name: 'lookup', arguments: {} }), id: null }],
    ['arguments null', call({ name: 'lookup', arguments: null })],
    ['arguments an array', call({ name: 'lookup', arguments: [1] })],
    ['a name not a string', call({ name: 42, arguments: {} })],
    ['_meta with a progress token', call({ name: 'lookup', arguments: {}, _meta: { progressToken: 1 } })],
    ['an extra member', call({ name: 'lookup', arguments: {} }, { extra: true })],
    ['jsonrpc 1.0', call({ name: 'lookup', arguments: {} }, { jsonrpc: '1.0' })],
    ['a batch of one', [call({ name: 'lookup', arguments: {} })]],
  ];
  for (const [name, body, headers] of cases) {
    it(`answers ${name} as the SDK does`, async () => {
      const { direct, sdk } = await both(body, ok, headers);
      expect(direct).toEqual(sdk);
    });
  }

  // Claude Code 2.1.328's tools/call as it sent it to this route (the real-host suite).
  const CLAUDE_META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': {
      name: 'claude-code',
      title: 'Claude Code',
      version: '2.1.328',
      description: "Anthropic's agentic coding tool",
      websiteUrl: 'https://claude.com/claude-code',
    },
    'io.modelcontextprotocol/clientCapabilities': {
      roots: { listChanged: true },
      elicitation: { form: {}, url: {} },
    },
    'claudecode/toolUseId': 'toolu_1795811221543',
    progressToken: 1,
  };
  const claude = (name: string, meta: object = CLAUDE_META, extra: object = {}) => ({
    method: 'tools/call',
    params: { name, arguments: { q: 'x' }, _meta: meta },
    jsonrpc: '2.0',
    id: 1,
    ...extra,
  });
  const CLAUDE_HEADERS = (name: string) => ({
    ...HEADERS,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
  });
  for (const [name, outcome] of outcomes) {
    it(`answers ${name} to a 2026-07-28 tools/call as the SDK does`, async () => {
      const { direct, sdk } = await both(claude('lookup'), outcome, CLAUDE_HEADERS('lookup'));
      expect(direct).toEqual(sdk);
      expect(direct.asked).toBe(1);
    });
  }
  it('answers an unknown tool in a 2026-07-28 tools/call as the SDK does, without asking the hook', async () => {
    const { direct, sdk } = await both(claude('nope'), ANSWER({ for_llm: 'x' }), CLAUDE_HEADERS('nope'));
    expect(direct).toEqual(sdk);
    expect(direct.asked).toBe(0);
  });
  const { progressToken: _p, 'claudecode/toolUseId': _t, ...BARE_META } = CLAUDE_META;
  const modernToolCases: [string, unknown, Record<string, string | undefined>][] = [
    ['the bare envelope', claude('lookup', BARE_META), CLAUDE_HEADERS('lookup')],
    [
      'a string progress token',
      claude('lookup', { ...CLAUDE_META, progressToken: 'p-1' }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'an object progress token',
      claude('lookup', { ...CLAUDE_META, progressToken: {} }),
      CLAUDE_HEADERS('lookup'),
    ],
    // Claude Code's envelope was judged already (the cases above): these differ from it in one key.
    [
      'no clientInfo',
      claude('lookup', { ...BARE_META, 'io.modelcontextprotocol/clientInfo': undefined }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'clientInfo null',
      claude('lookup', { ...BARE_META, 'io.modelcontextprotocol/clientInfo': null }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'a fractional progress token',
      claude('lookup', { ...CLAUDE_META, progressToken: 1.5 }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'an unknown log level',
      claude('lookup', { ...CLAUDE_META, 'io.modelcontextprotocol/logLevel': 'loud' }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'a log level',
      claude('lookup', { ...CLAUDE_META, 'io.modelcontextprotocol/logLevel': 'debug' }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'clientInfo a number',
      claude('lookup', { ...CLAUDE_META, 'io.modelcontextprotocol/clientInfo': 5 }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'a traceparent',
      claude('lookup', {
        ...CLAUDE_META,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      }),
      CLAUDE_HEADERS('lookup'),
    ],
    ['a bad traceparent', claude('lookup', { ...CLAUDE_META, traceparent: 5 }), CLAUDE_HEADERS('lookup')],
    [
      'an MCP-prefixed key of its own',
      claude('lookup', { ...CLAUDE_META, 'mcp.dev/x': 5 }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'a client key with an MCP-like value',
      claude('lookup', { ...CLAUDE_META, 'acme/x': { progressToken: {} } }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'a vendor key holding an object',
      claude('lookup', { ...CLAUDE_META, 'x/y': { a: [1] } }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'no capabilities',
      claude('lookup', { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'capabilities of the wrong shape',
      claude('lookup', { ...CLAUDE_META, 'io.modelcontextprotocol/clientCapabilities': { roots: 5 } }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'clientInfo without a version',
      claude('lookup', { ...CLAUDE_META, 'io.modelcontextprotocol/clientInfo': { name: 'x' } }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'a 2025 claim',
      claude('lookup', { ...CLAUDE_META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'an unknown claimed revision',
      claude('lookup', { ...CLAUDE_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }),
      { ...CLAUDE_HEADERS('lookup'), 'mcp-protocol-version': '2099-01-01' },
    ],
    ['no Mcp-Name', claude('lookup'), { ...CLAUDE_HEADERS('lookup'), 'mcp-name': undefined }],
    ['another Mcp-Name', claude('lookup'), CLAUDE_HEADERS('other')],
    ['a Base64 Mcp-Name', claude('lookup'), CLAUDE_HEADERS('=?base64?bG9va3Vw?=')],
    ['no Mcp-Method', claude('lookup'), { ...CLAUDE_HEADERS('lookup'), 'mcp-method': undefined }],
    [
      'no protocol header',
      claude('lookup'),
      { ...CLAUDE_HEADERS('lookup'), 'mcp-protocol-version': undefined },
    ],
    ['a text body type', claude('lookup'), { ...CLAUDE_HEADERS('lookup'), 'content-type': 'text/plain' }],
    ['accept without SSE', claude('lookup'), { ...CLAUDE_HEADERS('lookup'), accept: 'application/json' }],
    ['no accept', claude('lookup'), { ...CLAUDE_HEADERS('lookup'), accept: undefined }],
    [
      'a retry key',
      claude('lookup', CLAUDE_META, { params: { name: 'lookup', _meta: CLAUDE_META, requestState: 'x' } }),
      CLAUDE_HEADERS('lookup'),
    ],
    [
      'a task',
      claude('lookup', CLAUDE_META, { params: { name: 'lookup', _meta: CLAUDE_META, task: {} } }),
      CLAUDE_HEADERS('lookup'),
    ],
    ['a string id', claude('lookup', CLAUDE_META, { id: 'c-1' }), CLAUDE_HEADERS('lookup')],
    ['_meta an array', claude('lookup', [] as unknown as object), CLAUDE_HEADERS('lookup')],
  ];
  for (const [name, body, headers] of modernToolCases) {
    it(`answers a 2026-07-28 tools/call with ${name} as the SDK does`, async () => {
      const { direct, sdk } = await both(body, ok, headers);
      expect(direct).toEqual(sdk);
    });
  }

  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.328' },
    'io.modelcontextprotocol/clientCapabilities': { roots: {} },
  };
  const MODERN_HEADERS = (method: string, name?: string) => ({
    ...HEADERS,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    'mcp-name': name,
  });
  const modern = (method: string, params: object, extra: object = {}) => ({
    jsonrpc: '2.0',
    id: 'm-1',
    method,
    params: { ...params, _meta: ENVELOPE },
    ...extra,
  });
  // Bodies with the envelope claim skip isLegacyRequest: the modern handler must answer them all
  // as it did when the SDK classified them twice.
  const modernCases: [string, unknown, Record<string, string | undefined>][] = [
    [
      'a modern tools/call',
      modern('tools/call', { name: 'lookup', arguments: {} }),
      MODERN_HEADERS('tools/call', 'lookup'),
    ],
    ['server/discover', modern('server/discover', {}), MODERN_HEADERS('server/discover')],
    ['a modern tools/list', modern('tools/list', {}), MODERN_HEADERS('tools/list')],
    ['a modern unknown tool', modern('tools/call', { name: 'nope' }), MODERN_HEADERS('tools/call', 'nope')],
    [
      'initialize with the claim',
      modern('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
      MODERN_HEADERS('initialize'),
    ],
    [
      'a claim naming a 2025 revision',
      {
        ...modern('tools/list', {}),
        params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
      },
      HEADERS,
    ],
    [
      'an envelope missing its capabilities',
      {
        ...modern('tools/list', {}),
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
      MODERN_HEADERS('tools/list'),
    ],
    ['a header naming another method', modern('tools/list', {}), MODERN_HEADERS('tools/call')],
    ['no protocol header', modern('tools/list', {}), HEADERS],
    [
      'a notification with the claim',
      { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: ENVELOPE } },
      MODERN_HEADERS('notifications/initialized'),
    ],
    [
      'a posted result with the claim',
      { jsonrpc: '2.0', id: 3, result: {}, params: { _meta: ENVELOPE } },
      MODERN_HEADERS('x'),
    ],
    [
      'a claim on a message without an id',
      { jsonrpc: '2.0', id: null, method: 'tools/list', params: { _meta: ENVELOPE } },
      MODERN_HEADERS('tools/list'),
    ],
  ];
  for (const [name, body, headers] of modernCases) {
    it(`answers ${name} as the SDK does`, async () => {
      const { direct, sdk } = await both(body, ok, headers);
      expect(direct).toEqual(sdk);
    });
  }

  it('takes the plain shape only', () => {
    const req = request('', HEADERS);
    expect(plainToolCall(req, call({ name: 'lookup', arguments: { a: 1 } }))).toEqual({
      id: 7,
      name: 'lookup',
      args: { a: 1 },
      modern: false,
    });
    // Claude Code's call is answered directly too.
    expect(plainToolCall(request('', CLAUDE_HEADERS('lookup')), claude('lookup'))).toEqual({
      id: 1,
      name: 'lookup',
      args: { q: 'x' },
      modern: true,
    });
    expect(plainToolCall(req, call({ name: 'lookup' }, { method: 'tools/list' }))).toBeUndefined();
    expect(
      plainToolCall(
        req,
        JSON.parse(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","__proto__":{}}}',
        ),
      ),
    ).toBeUndefined();
    expect(
      plainToolCall(request('', { ...HEADERS, 'mcp-method': 'tools/call' }), call({ name: 'lookup' })),
    ).toBeUndefined();
  });
});
