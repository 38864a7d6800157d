import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createWorker } from '../../src/worker/worker.js';
import { testModules } from './entry.js';
import { BINDINGS, CONFIG } from './fixtures.js';
import { beforeTool, HOOK_URL, ORIGIN, rpc, token } from './helpers.js';

const ADMIN_TOKEN = 'worker-admin-token-0123456789-abcdefghijkl';
const SLOW = 0.001; // one call per 1000 s: within a test only the burst gets through

/** Bindings whose config gives tenant acme these limits. */
function limitedEnv(limits: object, extra: Record<string, unknown> = {}) {
  const doc = structuredClone(CONFIG) as any;
  doc.tenants.acme.limits = limits;
  doc.server.admin_token = 'env:ADMIN_TOKEN';
  return { ...BINDINGS, ADMIN_TOKEN, HOOKGATE_CONFIG: JSON.stringify(doc), ...extra };
}

/** A gateway Worker instance of its own: what a second isolate would be. */
function isolate() {
  const lines: string[] = [];
  return { worker: createWorker({ modules: testModules, sink: (l) => lines.push(l) }), lines };
}

async function call(worker: ReturnType<typeof createWorker>, bindings: Record<string, unknown>) {
  return worker.fetch(
    new Request(HOOK_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
      body: JSON.stringify(rpc('hook.before_tool', beforeTool('get_weather', { city: 'Berlin' }))),
    }),
    bindings,
  );
}

describe('limits on Workers', () => {
  it('two isolates share one tenant limit through the tenant’s Durable Object', async () => {
    const bindings = limitedEnv(
      { calls_per_second: SLOW, burst: 3 },
      { HOOKGATE_LIMITER: env.HOOKGATE_LIMITER },
    );
    const one = isolate();
    const two = isolate();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(i % 2 ? two.worker : one.worker, bindings)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    const refused = await call(one.worker, bindings);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { code: 'too_many_requests' } });
    const metrics = await (
      await one.worker.fetch(
        new Request(`${ORIGIN}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
        bindings,
      )
    ).text();
    expect(metrics).toContain('hookgate_rate_limited_total{tenant="acme",hook="tools",limit="tenant_rate"}');
    expect(metrics).not.toMatch(/hookgate_limiter_fallbacks_total \d/);
    // The calls this isolate let through (two of the three admitted) are timed; refused ones are not.
    expect(metrics).toContain(
      'hookgate_call_duration_seconds_count{tenant="acme",hook="tools",method="hook.before_tool"} 2',
    );
    expect(metrics).toContain(
      'hookgate_call_duration_seconds_bucket{tenant="acme",hook="tools",method="hook.before_tool",le="+Inf"} 2',
    );
  });

  it('without the binding, each isolate limits on its own', async () => {
    const bindings = limitedEnv({ calls_per_second: SLOW, burst: 2 });
    delete (bindings as Record<string, unknown>).HOOKGATE_LIMITER;
    const one = isolate();
    const two = isolate();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(i % 2 ? two.worker : one.worker, bindings)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('the Durable Object counts calls in flight and forgets them at their deadline', async () => {
    const id = env.HOOKGATE_LIMITER.idFromName(`inflight-${Date.now()}`);
    const stub = env.HOOKGATE_LIMITER.get(id);
    const decide = async (lease: string, ttlMs = 60_000) =>
      (await (
        await stub.fetch('https://limiter.hookgate/decide', {
          method: 'POST',
          body: JSON.stringify({ hook: 'h', hookLimits: { burst: 1, maxInFlight: 1 }, lease, ttlMs }),
        })
      ).json()) as { ok: boolean; limit?: string };
    expect(await decide('a')).toEqual({ ok: true });
    expect(await decide('b')).toMatchObject({ ok: false, limit: 'hook_in_flight' });
    await stub.fetch('https://limiter.hookgate/release', {
      method: 'POST',
      body: JSON.stringify({ hook: 'h', lease: 'a' }),
    });
    expect(await decide('c', 50)).toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 80));
    expect(await decide('d')).toEqual({ ok: true });
  });
});
