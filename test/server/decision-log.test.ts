import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DECISIONS_OFF, type DecisionSettings } from '../../src/config/decisions.js';
import type { Decision } from '../../src/server/decision.js';
import { DecisionLog } from '../../src/server/decision-log.js';
import { Metrics } from '../../src/server/metrics.js';

const settings = (over: Partial<DecisionSettings> = {}): DecisionSettings => ({
  ...DECISIONS_OFF,
  target: { kind: 'stdout' },
  ...over,
});

function decision(i: number): Decision {
  return {
    id: `d-${i}`,
    time: 0,
    tenant: 'acme',
    hook: 'h',
    dialect: 'picoclaw',
    method: 'hook.before_tool',
    configRevision: 'r',
    kind: 'passed',
    params: { tool: 't', arguments: { token: 'x', i } },
    violations: [],
    startedAt: 0,
    hookMs: 0,
    totalMs: 0,
  };
}

const metric = (m: Metrics, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(m.render())?.[1]);

describe('DecisionLog', () => {
  it('never waits for a slow output: past max_queued it drops and counts, then writes the rest', async () => {
    const metrics = new Metrics();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const written: string[] = [];
    const log = new DecisionLog(
      settings({ maxQueued: 5 }),
      async (lines) => {
        await held;
        written.push(...lines);
      },
      metrics,
    );
    // The output holds the first batch; meanwhile the queue fills and the rest are dropped.
    for (let i = 0; i < 5; i++) log.record(decision(i), false);
    const first = log.flush();
    for (let i = 5; i < 12; i++) log.record(decision(i), false);
    expect(metric(metrics, 'hookgate_decision_records_dropped_total{reason="queue_full"}')).toBe(2);
    release();
    await first;
    await log.flush();
    expect(written.map((l) => JSON.parse(l).decision_id)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `d-${i}`),
    );
    expect(metric(metrics, 'hookgate_decision_records_total')).toBe(10);
  });

  it('keeps writing after a scheduled drain finds the queue already flushed', async () => {
    const written: string[] = [];
    // A synchronous digest: the flush then ends within microtasks, before record()'s timer fires.
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const log = new DecisionLog(
      settings(),
      (lines) => {
        written.push(...lines);
      },
      new Metrics(),
      sha256,
    );
    log.record(decision(1), false);
    await log.flush();
    // The drain record() scheduled now runs on an empty queue, and must leave nothing running.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log.pending).toBe(0);
    log.record(decision(2), false);
    await log.flush();
    expect(written.map((l) => JSON.parse(l).decision_id)).toEqual(['d-1', 'd-2']);
  });

  it('counts a failing output as dropped records and keeps going', async () => {
    const metrics = new Metrics();
    let fail = true;
    const written: string[] = [];
    const log = new DecisionLog(
      settings(),
      (lines) => {
        if (fail) throw new Error('disk full');
        written.push(...lines);
      },
      metrics,
    );
    log.record(decision(1), false);
    log.record(decision(2), false);
    await log.flush();
    fail = false;
    log.record(decision(3), false);
    await log.flush();
    expect(metric(metrics, 'hookgate_decision_records_dropped_total{reason="write_failed"}')).toBe(2);
    expect(written.map((l) => JSON.parse(l).decision_id)).toEqual(['d-3']);
  });

  it('samples: 0 records nothing, off records nothing, 1 records every call', () => {
    const out = () => {};
    expect(new DecisionLog(settings({ sample: 0 }), out, new Metrics()).sampled()).toBe(false);
    expect(new DecisionLog(DECISIONS_OFF, out, new Metrics()).sampled()).toBe(false);
    expect(new DecisionLog(settings(), undefined, new Metrics()).sampled()).toBe(false);
    const all = new DecisionLog(settings(), out, new Metrics());
    expect(Array.from({ length: 100 }, () => all.sampled()).every(Boolean)).toBe(true);
  });

  it('writes arguments only when asked to, and scrubs a token out of them', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2ln';
    const lines: string[] = [];
    const log = new DecisionLog(
      settings(),
      (l) => {
        lines.push(...l);
      },
      new Metrics(),
    );
    const d = { ...decision(1), params: { tool: 't', arguments: { auth: jwt } } };
    log.record(d, false);
    log.record(d, true);
    await log.flush();
    expect(JSON.parse(lines[0])).not.toHaveProperty('params');
    expect(lines[1]).not.toContain(jwt);
    expect(JSON.parse(lines[1]).params.arguments.auth).toBe('[redacted]');
  });
});
