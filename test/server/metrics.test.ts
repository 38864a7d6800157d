import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, Metrics } from '../../src/server/metrics.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { histogram, parseExposition } from '../helpers/prometheus.js';
import { recorder } from '../helpers/recording-hook.js';

const DURATION = 'hookgate_call_duration_seconds';

describe('Metrics histograms', () => {
  it('renders cumulative buckets ending in +Inf, with sum and count, that a strict parser reads', () => {
    const m = new Metrics();
    const observe = m.histogram(DURATION, { tenant: 't', hook: 'h', method: 'hook.before_tool' });
    for (const s of [0.00005, 0.0001, 0.0003, 0.02, 45, 120]) observe(s);
    const exp = parseExposition(m.render());
    expect(exp.types.get(DURATION)).toBe('histogram');
    const h = histogram(exp, DURATION, { tenant: 't', hook: 'h', method: 'hook.before_tool' });
    expect([...h.buckets.keys()]).toEqual([...DURATION_BUCKETS.map(String), '+Inf']);
    // le is inclusive: 0.0001 falls in the 0.0001 bucket.
    expect(h.buckets.get('0.0001')).toBe(2);
    expect(h.buckets.get('0.0005')).toBe(3);
    expect(h.buckets.get('0.025')).toBe(4);
    expect(h.buckets.get('30')).toBe(4);
    expect(h.buckets.get('60')).toBe(5);
    expect(h.buckets.get('+Inf')).toBe(6);
    expect(h.count).toBe(6);
    expect(h.sum).toBeCloseTo(165.02045, 6);
    const values = [...h.buckets.values()];
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });

  it('keeps one series per label set, and the same series for the same labels resolved twice', () => {
    const m = new Metrics();
    m.histogram(DURATION, { tenant: 't', hook: 'h', method: 'a' })(0.001);
    m.histogram(DURATION, { tenant: 't', hook: 'h', method: 'a' })(0.001);
    m.histogram(DURATION, { tenant: 't', hook: 'h', method: 'b' })(0.001);
    const exp = parseExposition(m.render());
    expect(exp.value(`${DURATION}_count`, { tenant: 't', hook: 'h', method: 'a' })).toBe(2);
    expect(exp.value(`${DURATION}_count`, { tenant: 't', hook: 'h', method: 'b' })).toBe(1);
  });
});

describe('Metrics gauges', () => {
  it('expose a sample from the start: 0 for an unlabelled gauge, 0 for a label set once resolved', () => {
    const m = new Metrics();
    const exp = parseExposition(m.render());
    expect(exp.types.get('hookgate_ws_connections')).toBe('gauge');
    expect(exp.value('hookgate_ws_connections')).toBe(0);
    m.counter('hookgate_calls_in_flight', { tenant: 't', hook: 'h' });
    expect(parseExposition(m.render()).value('hookgate_calls_in_flight', { tenant: 't', hook: 'h' })).toBe(0);
  });
});

describe('/metrics of a running gateway', () => {
  const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, modes: ['tool'] };
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: { acme: tenantDoc({ tools: rec, limited: { ...rec, limits: { max_in_flight: 2 } } }) },
    });
  });
  afterAll(() => gw?.close());

  it('answers in the Prometheus text format 0.0.4, charset included', async () => {
    const res = await fetch(`${gw.url}/metrics`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('shows every gauge before anything happened: no WebSocket yet, no call in flight for a limited hook', async () => {
    const exp = parseExposition(await gw.metricsText());
    expect(exp.value('hookgate_ws_connections')).toBe(0);
    expect(exp.value('hookgate_calls_in_flight', { tenant: 'acme', hook: 'limited' })).toBe(0);
    // Only hooks with limits are counted in flight.
    expect(exp.find('hookgate_calls_in_flight', { hook: 'tools' })).toEqual([]);
  });

  it('times every call through the gateway per tenant, hook and method', async () => {
    const labels = { tenant: 'acme', hook: 'tools', method: 'hook.before_tool' };
    const before = parseExposition(await gw.metricsText());
    expect(before.find(`${DURATION}_count`, labels)).toEqual([]);

    // A hook that takes 40 ms: the time must land above the 25 ms bucket.
    recorder().answer = async () => {
      await new Promise((r) => setTimeout(r, 40));
      return { action: 'continue' };
    };
    try {
      for (let i = 0; i < 3; i++) await gw.call('tools', 'hook.before_tool', { tool: 'x', arguments: {} });
    } finally {
      recorder().answer = () => ({ action: 'continue' });
    }
    await gw.call('tools', 'hook.after_tool', { tool: 'x', arguments: {}, result: {} });

    const exp = parseExposition(await gw.metricsText());
    const h = histogram(exp, DURATION, labels);
    expect(h.count).toBe(3);
    expect(h.buckets.get('+Inf')).toBe(3);
    expect(h.buckets.get('0.025')).toBe(0);
    expect(h.buckets.get('60')).toBe(3);
    expect(h.sum).toBeGreaterThanOrEqual(0.11);
    expect(h.sum).toBeLessThan(60);
    // Another method is its own series; calls_total and the histogram agree.
    expect(exp.value(`${DURATION}_count`, { ...labels, method: 'hook.after_tool' })).toBe(1);
    expect(exp.value('hookgate_calls_total', { ...labels, outcome: 'ok' })).toBe(3);
  });

  it('includes the Node process metrics', async () => {
    const exp = parseExposition(await gw.metricsText());
    expect(exp.value('process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    expect(exp.value('process_open_fds')).toBeGreaterThan(3);
    expect(exp.value('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(exp.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(exp.types.get('nodejs_eventloop_lag_max_seconds')).toBe('gauge');
  });
});
