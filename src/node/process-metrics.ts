import { readdirSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { Metrics } from '../server/metrics.js';

/**
 * The gateway process's own health on /metrics: CPU, memory, event-loop lag and open file
 * descriptors, read at scrape time (nothing on the call path). Names and units follow prom-client's
 * defaults, so the usual Node.js dashboards read them unchanged.
 *
 * Returns a stop function (the event-loop monitor runs a timer of its own, and the collections are
 * observed until it is called).
 */
export function collectProcessMetrics(metrics: Metrics): () => void {
  const stopGc = observeGarbageCollections(metrics);
  // 10 ms resolution: the lag that matters to hook calls is milliseconds and up.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // Floor: rounding up could put the start a fraction of a second in the future.
  const startTime = Math.floor(Date.now() / 1000 - process.uptime());
  metrics.addCollector(() => {
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    const lines = [
      family('process_cpu_user_seconds_total', 'counter', 'User CPU time spent, in seconds', cpu.user / 1e6),
      family(
        'process_cpu_system_seconds_total',
        'counter',
        'System CPU time spent, in seconds',
        cpu.system / 1e6,
      ),
      family(
        'process_cpu_seconds_total',
        'counter',
        'User and system CPU time spent, in seconds',
        (cpu.user + cpu.system) / 1e6,
      ),
      family(
        'process_start_time_seconds',
        'gauge',
        'Start time of the process since the epoch, in seconds',
        startTime,
      ),
      family('process_resident_memory_bytes', 'gauge', 'Resident memory size, in bytes', mem.rss),
      family('nodejs_heap_size_total_bytes', 'gauge', 'V8 heap size, in bytes', mem.heapTotal),
      family('nodejs_heap_size_used_bytes', 'gauge', 'V8 heap used, in bytes', mem.heapUsed),
      family(
        'nodejs_external_memory_bytes',
        'gauge',
        'Memory of C++ objects bound to JS, in bytes',
        mem.external,
      ),
    ];
    const fds = openFds();
    if (fds !== undefined) lines.push(family('process_open_fds', 'gauge', 'Open file descriptors', fds));
    // Since the previous scrape: a lag that came and went between two scrapes still shows in max.
    const lag = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
    lines.push(
      family(
        'nodejs_eventloop_lag_p50_seconds',
        'gauge',
        'Event loop lag, median since the last scrape',
        lag(loop.percentile(50)),
      ),
      family(
        'nodejs_eventloop_lag_p99_seconds',
        'gauge',
        'Event loop lag, 99th percentile since the last scrape',
        lag(loop.percentile(99)),
      ),
      family(
        'nodejs_eventloop_lag_max_seconds',
        'gauge',
        'Event loop lag, maximum since the last scrape',
        lag(loop.max),
      ),
    );
    loop.reset();
    return lines.join('');
  });
  return () => {
    loop.disable();
    stopGc();
  };
}

/** prom-client's buckets for the same histogram, so its dashboards' queries fit. */
const GC_BUCKETS: readonly number[] = [0.001, 0.01, 0.1, 1, 2, 5];

/**
 * `nodejs_gc_duration_seconds` by kind, as prom-client names it. The rate of major collections is
 * how an operator sees V8 collecting the old generation over and over under load (docs/metrics.md).
 * Node reports each collection after it ends, in batches off the call path: tens of entries a
 * second under load (a young collection per several megabytes allocated), not one per call.
 */
function observeGarbageCollections(metrics: Metrics): () => void {
  const name = 'nodejs_gc_duration_seconds';
  metrics.defineHistogram(
    name,
    'Garbage collection duration by kind (minor, major, incremental, weakcb), in seconds',
    GC_BUCKETS,
  );
  // Every kind resolved at once: a dashboard sees zero rather than no series before the first one.
  const byKind = new Map<number, (seconds: number) => void>([
    [constants.NODE_PERFORMANCE_GC_MINOR, metrics.histogram(name, { kind: 'minor' })],
    [constants.NODE_PERFORMANCE_GC_MAJOR, metrics.histogram(name, { kind: 'major' })],
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL, metrics.histogram(name, { kind: 'incremental' })],
    [constants.NODE_PERFORMANCE_GC_WEAKCB, metrics.histogram(name, { kind: 'weakcb' })],
  ]);
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind !== undefined) byKind.get(kind)?.(entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

function family(name: string, type: 'counter' | 'gauge', help: string, value: number): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}\n`;
}

/** Linux (and anything with /proc): the entries of /proc/self/fd, less the one reading it. */
function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length - 1;
  } catch {
    return undefined;
  }
}
