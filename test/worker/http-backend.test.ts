import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/sdk/index.js';
import { createWorker } from '../../src/worker/worker.js';
import { testModules } from './entry.js';
import { BINDINGS, CONFIG } from './fixtures.js';
import { beforeTool, rpc, token } from './helpers.js';
import hook from './hooks/tool-hook.js';

const HOOK_SECRET = `whsec_${btoa('workerd-test-webhook-secret-0123')}`;
const UPSTREAM = 'https://tool-hook.example/rpc';

/**
 * A gateway Worker whose `http` hook is the test hook behind toFetchHandler, reached through the
 * Worker's fetch: requests are signed by the gateway and verified by the SDK, both with workerd's
 * Web Crypto.
 */
function gatewayWithHttpHook(events: unknown[], delayMs = 0, bodies: string[] = [], grants?: object) {
  const serve = toFetchHandler(hook, { secret: HOOK_SECRET });
  const upstream = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    expect(request.url).toBe(UPSTREAM);
    bodies.push(await request.clone().text());
    const body = await request.clone().json<{ id?: number; method: string }>();
    if (body.id === undefined) {
      await new Promise((r) => setTimeout(r, delayMs));
      events.push(body);
    }
    return serve(request);
  };
  const doc = structuredClone(CONFIG) as any;
  doc.tenants.acme.hooks.remote = {
    backend: { type: 'http', url: UPSTREAM, secret: 'env:HOOK_SECRET', timeout_ms: 2000 },
    modes: ['observe', 'tool'],
    tools: ['get_weather'],
    ...(grants ? { grants } : {}),
  };
  const worker = createWorker({ modules: testModules, sink: () => {}, fetch: upstream as typeof fetch });
  const env = { ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(doc), HOOK_SECRET };
  const post = async (body: unknown, ctx?: ExecutionContext) =>
    worker.fetch(
      new Request('https://hookgate.test/v1/tenants/acme/hooks/remote', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
      env,
      ctx,
    );
  return { post };
}

/** The weather hook's answer to get_weather for Oslo, as the gateway passes it on. */
const OSLO_WEATHER = {
  action: 'respond',
  result: { for_llm: 'Oslo: 18 C, light rain', silent: false, is_error: false },
};

describe('http backend on workerd', () => {
  it('signs calls that toFetchHandler verifies, and applies policy to the answer', async () => {
    const { post } = gatewayWithHttpHook([]);
    const own = await post(rpc('hook.before_tool', beforeTool('get_weather', { city: 'Oslo' }), 1));
    expect(await own.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: OSLO_WEATHER,
    });
    const other = await post(rpc('hook.before_tool', beforeTool('bash', { command: 'id' }), 2));
    expect(await other.json()).toEqual({ jsonrpc: '2.0', id: 2, result: { action: 'continue' } });
  });

  it("sends a large request's params as the host wrote them, and still checks the answer against them", async () => {
    // Over 8 KiB: the gateway checks the text as JSON and parses only the members it reads
    // (src/core/lazy-params.ts); the hook's upstream gets the params text unchanged.
    const note = 'n'.repeat(9000);
    const params = `{ "tool": "get_weather", "arguments": { "city": "Oslo", "note": "${note} \\u00e9" } }`;
    const bodies: string[] = [];
    // Seeing the whole call, the hook is sent the params unchanged (minimised ones are new objects).
    const { post } = gatewayWithHttpHook([], 0, bodies, { conversation_access: true });
    const res = await post(`{"jsonrpc":"2.0","id":7,"method":"hook.before_tool","params":${params}}`);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: OSLO_WEATHER,
    });
    expect(bodies).toHaveLength(1);
    const sent = bodies[0]!;
    expect(sent.slice(sent.indexOf('"params":') + '"params":'.length, -1) === params).toBe(true);
    // Bad JSON after the first 8 KiB is refused before any hook is asked.
    const bad = await post(
      `{"jsonrpc":"2.0","id":8,"method":"hook.before_tool","params":${params.replace('"Oslo"', '"Oslo",')}}`,
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(bodies).toHaveLength(1);
  });

  it('keeps the Worker alive (waitUntil) until a runtime event is delivered', async () => {
    const events: unknown[] = [];
    const { post } = gatewayWithHttpHook(events, 200);
    const ctx = createExecutionContext();
    const res = await post(
      { jsonrpc: '2.0', method: 'hook.runtime_event', params: { kind: 'turn_start' } },
      ctx,
    );
    expect(res.status).toBe(202);
    expect(events).toHaveLength(0);
    await waitOnExecutionContext(ctx);
    expect(events).toEqual([
      { jsonrpc: '2.0', method: 'hook.runtime_event', params: { kind: 'turn_start' } },
    ]);
  });
});
