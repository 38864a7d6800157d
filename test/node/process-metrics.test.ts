import { closeSync, openSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { collectProcessMetrics } from '../../src/node/process-metrics.js';
import { Metrics } from '../../src/server/metrics.js';
import { parseExposition } from '../helpers/prometheus.js';

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
});
