import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

/**
 * Tenant and hook limits through a real gateway on 127.0.0.1. A rate of 0.001 calls per second
 * refills one call per 1000 s, so within a test only the burst gets through: exact counts.
 */
const rec = (limits?: object, extra: object = {}) => ({
  backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
  tools: ['get_weather'],
  limits,
  ...extra,
});
const SLOW = 0.001;
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      // HTTP: a hook limit inside a tenant limit.
      acme: {
        ...tenantDoc({ a: rec({ calls_per_second: SLOW, burst: 2 }), b: rec() }),
        limits: { calls_per_second: SLOW, burst: 3 },
      },
      // WebSocket.
      wsco: tenantDoc({ h: rec({ calls_per_second: SLOW, burst: 2 }) }),
      // In flight.
      busy: { ...tenantDoc({ h: rec({ max_in_flight: 2 }), g: rec() }), limits: { max_in_flight: 3 } },
      // Events.
      obs: tenantDoc({ h: rec({ calls_per_second: SLOW, burst: 2 }, { modes: ['observe', 'tool'] }) }),
      free: tenantDoc({ h: rec() }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

let nextId = 1;
const call = (id = nextId++) => ({ jsonrpc: '2.0', id, method: 'hook.before_tool', params: { tool: 'x' } });

async function post(tenant: string, hook: string, body: unknown = call()) {
  return gw.post(tenant, hook, body, await gw.token({ tenant }));
}

async function statuses(tenant: string, hook: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await post(tenant, hook)).status);
  return out;
}

async function metric(line: string): Promise<number> {
  const text = await gw.metricsText();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
}

describe('limits over HTTP', () => {
  it('answers 429 with Retry-After and the error body once a hook is over its rate', async () => {
    expect(await statuses('acme', 'a', 2)).toEqual([200, 200]);
    const res = await post('acme', 'a');
    expect(res.status).toBe(429);
    const retry = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(1000);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toEqual({
      error: { code: 'too_many_requests', message: expect.stringContaining('hook_rate') },
    });
    // The refused calls never reached the hook.
    expect(recorder().calls).toHaveLength(2);
  });

  it("shares the tenant's limit across its hooks (b has none of its own)", async () => {
    // acme's burst of 3: two went to `a` in the test before.
    expect(await statuses('acme', 'b', 3)).toEqual([200, 429, 429]);
    expect(await metric('hookgate_rate_limited_total{tenant="acme",hook="b",limit="tenant_rate"}')).toBe(2);
    expect(await metric('hookgate_rate_limited_total{tenant="acme",hook="a",limit="hook_rate"}')).toBe(1);
    // Another tenant is not affected.
    expect(await statuses('free', 'h', 5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('describe shows a caller the limits it is held to (the hook and its tenant), and none where unset', async () => {
    const described = async (tenant: string, hook: string) =>
      (await (
        await fetch(`${gw.url}/v1/tenants/${tenant}/hooks/${hook}`, {
          headers: { authorization: `Bearer ${await gw.token({ tenant })}` },
        })
      ).json()) as { limits: Record<string, unknown> };
    expect((await described('acme', 'a')).limits).toMatchObject({
      hook: { calls_per_second: SLOW, burst: 2 },
      tenant: { calls_per_second: SLOW, burst: 3 },
    });
    expect((await described('busy', 'h')).limits).toMatchObject({
      hook: { max_in_flight: 2 },
      tenant: { max_in_flight: 3 },
    });
    const free = (await described('free', 'h')).limits;
    expect(free).not.toHaveProperty('hook');
    expect(free).not.toHaveProperty('tenant');
  });

  it('does not limit hello', async () => {
    const res = await post('acme', 'a', { jsonrpc: '2.0', id: 1, method: 'hook.hello', params: {} });
    expect(res.status).toBe(200);
  });

  it('logs refusals at a bounded rate, not one line per refused call', async () => {
    const before = gw.logs.lines.filter((l) => l.msg === 'refused by a limit').length;
    expect(await statuses('acme', 'a', 20)).toEqual(Array(20).fill(429));
    const lines = gw.logs.lines.filter((l) => l.msg === 'refused by a limit');
    expect(lines.length - before).toBeLessThanOrEqual(1);
    expect(lines.filter((l) => l.tenant === 'acme' && l.hook === 'a')).toHaveLength(1);
    expect(lines[0]).toMatchObject({ limit: 'hook_rate', level: 'warn', kind: 'call', unlogged_refusals: 0 });
  });
});

describe('limits over WebSocket', () => {
  it('answers a call over the limit with the Overloaded JSON-RPC error and keeps the socket', async () => {
    const token = await gw.token({ tenant: 'wsco' });
    const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/wsco/hooks/h/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    for (const id of [1, 2, 3, 4]) ws.send(JSON.stringify(call(id)));
    await expect.poll(() => messages.length, { timeout: 10_000 }).toBe(4);
    const byId = (id: number) => messages.find((m) => m.id === id);
    expect(byId(1).result).toEqual({ action: 'continue' });
    expect(byId(2).result).toEqual({ action: 'continue' });
    for (const id of [3, 4]) {
      expect(byId(id).error).toEqual({
        code: -32001,
        message: 'rate limited (hook_rate)',
        data: { retry_after_ms: expect.any(Number) },
      });
      expect(byId(id).error.data.retry_after_ms).toBeGreaterThanOrEqual(1);
    }
    // Still open: hello (not limited) is answered on the same socket.
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'hook.hello', params: {} }));
    await expect.poll(() => byId(5)?.result?.ok, { timeout: 10_000 }).toBe(true);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});

describe('in-flight limits', () => {
  it('refuses calls beyond max_in_flight while a slow hook holds them, per hook and per tenant', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    recorder().answer = async () => {
      await gate;
      return { action: 'continue' };
    };
    const held = [post('busy', 'h'), post('busy', 'h')];
    await expect.poll(() => recorder().calls.length, { timeout: 10_000 }).toBe(2);
    expect(await metric('hookgate_calls_in_flight{tenant="busy",hook="h"}')).toBe(2);
    const over = await post('busy', 'h');
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('1');
    expect((await over.json()).error.message).toContain('hook_in_flight');
    // g has no limit of its own; the tenant allows 3 in flight, 2 are taken by h.
    const third = post('busy', 'g');
    await expect.poll(() => recorder().calls.length, { timeout: 10_000 }).toBe(3);
    const tenantOver = await post('busy', 'g');
    expect(tenantOver.status).toBe(429);
    expect((await tenantOver.json()).error.message).toContain('tenant_in_flight');
    open();
    expect((await Promise.all([...held, third])).map((r) => r.status)).toEqual([200, 200, 200]);
    // Released: calls go through again, and the gauge is back to 0.
    expect(await statuses('busy', 'h', 2)).toEqual([200, 200]);
    expect(await metric('hookgate_calls_in_flight{tenant="busy",hook="h"}')).toBe(0);
    expect(await metric('hookgate_rate_limited_total{tenant="busy",hook="h",limit="hook_in_flight"}')).toBe(
      1,
    );
    expect(await metric('hookgate_rate_limited_total{tenant="busy",hook="g",limit="tenant_in_flight"}')).toBe(
      1,
    );
  });
});

describe('events over the limit', () => {
  it('are dropped and counted; the host still gets 202', async () => {
    const event = { jsonrpc: '2.0', method: 'hook.runtime_event', params: { id: 'e' } };
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await post('obs', 'h', event)).status);
    expect(codes).toEqual([202, 202, 202, 202, 202]);
    await expect.poll(() => recorder().calls.length, { timeout: 10_000 }).toBe(2);
    expect(await metric('hookgate_events_total{tenant="obs",hook="h",outcome="rate_limited"}')).toBe(3);
    expect(await metric('hookgate_rate_limited_total{tenant="obs",hook="h",limit="hook_rate"}')).toBe(3);
    // Events used the rate: calls are over it too.
    expect((await post('obs', 'h')).status).toBe(429);
  });
});
