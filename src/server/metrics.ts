/**
 * Counters, gauges and histograms in Prometheus text format. Label sets are small and fixed
 * (tenant, hook, method, outcome, rule), so a map keyed by the rendered label string is enough.
 * Hand-written rather than prom-client, which needs Node's modules (see docs/metrics.md).
 */
type Labels = Record<string, string>;

interface Family {
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, number>;
}

/**
 * Upper bounds (seconds) of the call-duration buckets: from a module hook answering in-process
 * (~100 µs) to the longest approval wait (60 s), about three per decade.
 */
export const DURATION_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** One label set of a histogram: per-bucket (not cumulative) counts, made cumulative at render. */
class HistogramSeries {
  /** One slot per bound, and a last one for +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    // Linear from the smallest bucket: most calls land in the first few.
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

interface HistogramFamily {
  help: string;
  bounds: readonly number[];
  series: Map<string, HistogramSeries>;
}

/** Adds metrics measured at scrape time (e.g. the process's CPU and memory) as exposition text. */
export type MetricsCollector = () => string;

export class Metrics {
  private readonly families = new Map<string, Family>();
  private readonly histograms = new Map<string, HistogramFamily>();
  private readonly collectors: MetricsCollector[] = [];

  constructor() {
    this.define('hookgate_calls_total', 'counter', 'Hook calls answered, by outcome');
    this.define(
      'hookgate_policy_refusals_total',
      'counter',
      'Parts of hook answers refused by policy, by rule',
    );
    this.define(
      'hookgate_approvals_total',
      'counter',
      'Calls held for a person’s approval (ask_human rules), by how they ended',
    );
    this.define(
      'hookgate_shadow_decisions_total',
      'counter',
      'What shadow-mode rules and grant conditions would have refused, by rule (nothing was refused)',
    );
    this.define(
      'hookgate_backend_failures_total',
      'counter',
      'Backend failures answered by the failure mode',
    );
    this.define('hookgate_events_total', 'counter', 'Runtime events received, by outcome');
    this.define(
      'hookgate_auth_failures_total',
      'counter',
      'Requests refused by authentication or authorisation',
    );
    this.define('hookgate_ws_connections', 'gauge', 'Open WebSocket connections', { unlabelled: true });
    this.define('hookgate_rate_limited_total', 'counter', 'Calls and events refused by a limit, by limit');
    this.define(
      'hookgate_calls_in_flight',
      'gauge',
      'Calls in flight in this process, for hooks with limits',
    );
    this.define(
      'hookgate_limiter_fallbacks_total',
      'counter',
      'Limit decisions made in-process because the shared store did not answer',
    );
    this.define(
      'hookgate_hook_stderr_dropped_lines_total',
      'counter',
      'Lines of hook stderr dropped by the per-hook rate limit',
    );
    this.define('hookgate_config_reloads_total', 'counter', 'Config reloads, by outcome (ok, refused)');
    this.define('hookgate_mcp_requests_total', 'counter', 'MCP messages received, by JSON-RPC method');
    this.define(
      'hookgate_decisions_total',
      'counter',
      'Hook calls decided, by dialect and kind (passed, changed, refused, mode_not_granted, rate_limited, failed)',
    );
    this.define('hookgate_decision_records_total', 'counter', 'Decision records written to server.decisions');
    this.define(
      'hookgate_decision_records_dropped_total',
      'counter',
      'Decision records dropped, by reason (queue_full: the sink is behind; write_failed)',
    );
    this.define(
      'hookgate_spans_exported_total',
      'counter',
      'Spans sent over OTLP (server.tracing), by outcome (ok, failed)',
    );
    this.defineHistogram(
      'hookgate_call_duration_seconds',
      'Hook calls from the message read to the answer ready to send, by tenant, hook and method',
      DURATION_BUCKETS,
    );
  }

  /**
   * A histogram family, for histogram() to resolve label sets of: the gateway's own here, and ones
   * measured outside the call path (the process's garbage collections). Defining a name twice keeps
   * the first definition.
   */
  defineHistogram(name: string, help: string, bounds: readonly number[]): void {
    if (!this.histograms.has(name)) this.histograms.set(name, { help, bounds, series: new Map() });
  }

  /**
   * A gauge has a sample from the start, so a dashboard or alert sees 0 rather than no data: an
   * unlabelled one at once, a labelled one as soon as its label set is resolved (see counter()).
   */
  private define(
    name: string,
    type: Family['type'],
    help: string,
    opts: { unlabelled?: boolean } = {},
  ): void {
    const values = new Map<string, number>();
    if (type === 'gauge' && opts.unlabelled) values.set('', 0);
    this.families.set(name, { help, type, values });
  }

  inc(name: string, labels: Labels = {}, by = 1): void {
    this.counter(name, labels)(by);
  }

  /** A counter (or a gauge's adder) for a fixed label set, rendered once: for hot paths. */
  counter(name: string, labels: Labels): (by?: number) => void {
    const f = this.families.get(name);
    if (!f) return () => {};
    const key = renderLabels(labels);
    if (f.type === 'gauge' && !f.values.has(key)) f.values.set(key, 0);
    return (by = 1) => {
      f.values.set(key, (f.values.get(key) ?? 0) + by);
    };
  }

  /** A histogram for a fixed label set, resolved once: for hot paths. Takes seconds. */
  histogram(name: string, labels: Labels): (seconds: number) => void {
    const f = this.histograms.get(name);
    if (!f) return () => {};
    const key = renderLabels(labels);
    let series = f.series.get(key);
    if (!series) {
      series = new HistogramSeries(f.bounds);
      f.series.set(key, series);
    }
    const s = series;
    return (seconds) => s.observe(seconds);
  }

  /** Runs at every render; its text is appended as is. */
  addCollector(collect: MetricsCollector): void {
    this.collectors.push(collect);
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, f] of this.families) {
      lines.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
      for (const [labels, v] of f.values) lines.push(`${name}${labels} ${v}`);
    }
    for (const [name, f] of this.histograms) {
      lines.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} histogram`);
      for (const [labels, s] of f.series) {
        // `le` goes last inside the braces of the series' own labels.
        const open = labels === '' ? '{' : `${labels.slice(0, -1)},`;
        let cumulative = 0;
        for (let i = 0; i <= f.bounds.length; i++) {
          cumulative += s.counts[i];
          const le = i < f.bounds.length ? String(f.bounds[i]) : '+Inf';
          lines.push(`${name}_bucket${open}le="${le}"} ${cumulative}`);
        }
        lines.push(`${name}_sum${labels} ${s.sum}`, `${name}_count${labels} ${s.count}`);
      }
    }
    let text = `${lines.join('\n')}\n`;
    for (const collect of this.collectors) text += collect();
    return text;
  }
}

function renderLabels(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${labels[k].replace(/["\\\n]/g, '_')}"`).join(',')}}`;
}
