/**
 * A few counters and gauges in Prometheus text format. Label sets are small and fixed (tenant, hook,
 * method, outcome, rule), so a map keyed by the rendered label string is enough.
 */
type Labels = Record<string, string>;

interface Family {
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, number>;
}

export class Metrics {
  private readonly families = new Map<string, Family>();

  constructor() {
    this.define('hookgate_calls_total', 'counter', 'Hook calls answered, by outcome');
    this.define(
      'hookgate_policy_refusals_total',
      'counter',
      'Parts of hook answers refused by policy, by rule',
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
    this.define('hookgate_ws_connections', 'gauge', 'Open WebSocket connections');
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
  }

  private define(name: string, type: Family['type'], help: string): void {
    this.families.set(name, { help, type, values: new Map() });
  }

  inc(name: string, labels: Labels = {}, by = 1): void {
    this.counter(name, labels)(by);
  }

  /** A counter for a fixed label set, rendered once: for hot paths. */
  counter(name: string, labels: Labels): (by?: number) => void {
    const f = this.families.get(name);
    if (!f) return () => {};
    const key = renderLabels(labels);
    return (by = 1) => {
      f.values.set(key, (f.values.get(key) ?? 0) + by);
    };
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, f] of this.families) {
      lines.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
      for (const [labels, v] of f.values) lines.push(`${name}${labels} ${v}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

function renderLabels(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${labels[k].replace(/["\\\n]/g, '_')}"`).join(',')}}`;
}
