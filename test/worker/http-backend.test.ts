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
function gatewayWithHttpHook(events: unknown[], delayMs = 0) {
  const serve = toFetchHandler(hook, { secret: HOOK_SECRET });
  const upstream = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    expect(request.url).toBe(UPSTREAM);
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
  };
  const worker = createWorker({ modules: testModules, sink: () => {}, fetch: upstream as typeof fetch });
  const env = { ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(doc), HOOK_SECRET };
  const post = async (body: unknown, ctx?: ExecutionContext) =>
    worker.fetch(
      new Request('https://hookgate.test/v1/tenants/acme/hooks/remote', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
        body: JSON.stringify(body),
      }),
      env,
      ctx,
    );
  return { post };
}

describe('http backend on workerd', () => {
  it('signs calls that toFetchHandler verifies, and applies policy to the answer', async () => {
    const { post } = gatewayWithHttpHook([]);
    const own = await post(rpc('hook.before_tool', beforeTool('get_weather', { city: 'Oslo' }), 1));
    expect(await own.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        action: 'respond',
        result: { for_llm: 'Oslo: 18 C, light rain', silent: false, is_error: false },
      },
    });
    const other = await post(rpc('hook.before_tool', beforeTool('bash', { command: 'id' }), 2));
    expect(await other.json()).toEqual({ jsonrpc: '2.0', id: 2, result: { action: 'continue' } });
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
