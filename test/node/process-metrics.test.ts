import { closeSync, openSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { collectProcessMetrics } from '../../src/node/process-metrics.js';
import { Metrics } from '../../src/server/metrics.js';
import { parseExposition } from '../helpers/prometheus.js';

/** A full (major) collection now: `gc` exposed at run time, taken from a fresh context. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Node reports a collection to its observers after a turn of the loop. */
const aTurn = () => new Promise((r) => setImmediate(r));

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}

/**
 * Spends `ms` of this process's own CPU time (wall time is longer on a shared machine; the
 * deadline is only a guard against a loop that never ends).
 */
function burnCpu(ms: number): void {
  const start = process.cpuUsage();
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
    busy(5);
  }
}

describe('process metrics on /metrics', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('reports CPU, memory and open fds that move with what the process does', () => {
    const m = new Metrics();
    stop = collectProcessMetrics(m);
    const before = parseExposition(m.render());
    const fds = Array.from({ length: 20 }, () => openSync('/dev/null', 'r'));
    burnCpu(150);
    const after = parseExposition(m.render());
    for (const fd of fds) closeSync(fd);

    expect(after.types.get('process_cpu_seconds_total')).toBe('counter');
    expect(
      after.value('process_cpu_seconds_total') - before.value('process_cpu_seconds_total'),
    ).toBeGreaterThan(0.1);
    expect(after.value('process_open_fds') - before.value('process_open_fds')).toBe(20);
    expect(after.value('process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(after.value('nodejs_heap_size_used_bytes')).toBeLessThanOrEqual(
      after.value('nodejs_heap_size_total_bytes'),
    );
    expect(after.value('process_start_time_seconds')).toBeLessThanOrEqual(Date.now() / 1000);
  });

  it('reports event-loop lag since the last scrape', async () => {
    const m = new Metrics();
    stop = collectProcessMetrics(m);
    // Let the monitor's timer run, then block the loop for 500 ms (wall time: at least that long
    // however loaded the machine is).
    await new Promise((r) => setTimeout(r, 50));
    busy(500);
    await new Promise((r) => setTimeout(r, 30));
    const blocked = parseExposition(m.render());
    expect(blocked.value('nodejs_eventloop_lag_max_seconds')).toBeGreaterThan(0.45);
    // A new window after the scrape, a few monitor ticks long: the blocked stretch is not reported
    // twice (only a stall as long as the block, inside this short window, could look the same).
    await new Promise((r) => setTimeout(r, 30));
    const calm = parseExposition(m.render());
    expect(calm.value('nodejs_eventloop_lag_max_seconds')).toBeLessThan(
      blocked.value('nodejs_eventloop_lag_max_seconds'),
    );
  });

  it('reports garbage collections by kind, as prom-client names them', async () => {
    const m = new Metrics();
    stop = collectProcessMetrics(m);
    const before = parseExposition(m.render());
    expect(before.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
    // Every kind has a series from the start, so a dashboard's rate() sees 0, not no data.
    for (const kind of ['minor', 'major', 'incremental', 'weakcb'])
      expect(before.value('nodejs_gc_duration_seconds_count', { kind })).toBe(0);

    collectGarbage();
    collectGarbage();
    // Young collections: allocate short-lived objects until one has been reported (bounded).
    let kept: unknown[] = [];
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 50_000; i++) kept.push({ i });
      kept = [];
      await aTurn();
      if (parseExposition(m.render()).value('nodejs_gc_duration_seconds_count', { kind: 'minor' }) > 0) break;
    }
    await aTurn();
    const after = parseExposition(m.render());
    expect(after.value('nodejs_gc_duration_seconds_count', { kind: 'major' })).toBeGreaterThanOrEqual(2);
    expect(after.value('nodejs_gc_duration_seconds_count', { kind: 'minor' })).toBeGreaterThan(0);
    expect(after.value('nodejs_gc_duration_seconds_sum', { kind: 'major' })).toBeGreaterThan(0);
    expect(after.value('nodejs_gc_duration_seconds_bucket', { kind: 'major', le: '+Inf' })).toBe(
      after.value('nodejs_gc_duration_seconds_count', { kind: 'major' }),
    );
  });

  it('stops observing collections when stopped', async () => {
    const stopped = new Metrics();
    collectProcessMetrics(stopped)();
    // A second collector still running shows when Node has reported the collection.
    const running = new Metrics();
    stop = collectProcessMetrics(running);
    const majors = (m: Metrics) =>
      parseExposition(m.render()).value('nodejs_gc_duration_seconds_count', { kind: 'major' });
    collectGarbage();
    for (let turn = 0; turn < 1000 && majors(running) === 0; turn++) await aTurn();
    expect(majors(running)).toBeGreaterThan(0);
    expect(majors(stopped)).toBe(0);
  });
});
