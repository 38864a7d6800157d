/**
 * deploy/grafana/hookgate.json queries only what the gateway exports: every metric its PromQL (and
 * its variables' label_values) names is a family src/server/metrics.ts (or, on Node, the process
 * metrics) defines, and every label it groups or filters by is one a real gateway's /metrics
 * carries for that family after calls that give every queried family a sample (a rule's deny, a
 * shadow rule, a person's approval, a limit, a hook's bad answer, a WebSocket, a reload). A renamed
 * metric or label fails here. With promtool installed, every expression must also parse as PromQL
 * (`promtool check rules`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { collectProcessMetrics } from '../../src/node/process-metrics.js';
import { Metrics } from '../../src/server/metrics.js';
import {
  compileTestConfig,
  REPO,
  startTestGateway,
  type TestGateway,
  tenantDoc,
} from '../helpers/gateway.js';
import { parseExposition } from '../helpers/prometheus.js';
import { recorder } from '../helpers/recording-hook.js';

interface Query {
  panel: string;
  expr: string;
}

const dashboard = JSON.parse(readFileSync(join(REPO, 'deploy/grafana/hookgate.json'), 'utf8'));

/** Every panel target's PromQL, with the panel it belongs to. */
function panelQueries(): Query[] {
  return dashboard.panels.flatMap((p: any) =>
    (p.targets ?? []).map((t: any) => ({ panel: p.title, expr: t.expr as string })),
  );
}

/** The variables' `label_values(selector, label)` queries, as a selector and the label. */
function variableQueries(): { name: string; selector: string; label: string }[] {
  return dashboard.templating.list
    .filter((v: any) => v.type === 'query')
    .map((v: any) => {
      const m = /^label_values\((.*),\s*([a-zA-Z_]\w*)\)$/.exec(v.query.query ?? v.query);
      if (!m) throw new Error(`variable ${v.name}: not a label_values query: ${v.query.query}`);
      return { name: v.name, selector: m[1], label: m[2] };
    });
}

/** Grafana's variables replaced by values Prometheus takes, so the text is plain PromQL. */
const plain = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replace(/\$(tenant|hook)\b/g, '.*');

const GROUPING = /\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g;
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
]);

/**
 * The metric names and label names a PromQL expression reads. Enough PromQL for a dashboard's
 * queries (selectors, matchers, ranges, aggregations with grouping, function calls, numbers); what
 * it does not read it leaves out, and promtool, when installed, parses the whole expression.
 */
function namesIn(expr: string): { metrics: string[]; labels: string[] } {
  const labels: string[] = [];
  let rest = plain(expr).replace(/"(?:[^"\\]|\\.)*"/g, '""');
  rest = rest.replace(GROUPING, (_all, list: string) => {
    labels.push(
      ...list
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    );
    return ' ';
  });
  rest = rest.replace(/\{([^}]*)\}/g, (_all, matchers: string) => {
    for (const m of matchers.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.push(m[1]);
    return ' ';
  });
  rest = rest.replace(/\[[^\]]*\]/g, ' ');
  const metrics = [...rest.matchAll(/([a-zA-Z_:][\w:]*)(\s*\()?/g)]
    .filter((m) => m[2] === undefined && !KEYWORDS.has(m[1]))
    .map((m) => m[1]);
  return { metrics, labels };
}

/** The family a sample name belongs to: a histogram's series carry _bucket, _sum or _count. */
function familyOf(name: string, histograms: Set<string>): string {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return base !== name && histograms.has(base) ? base : name;
}

/** Labels Prometheus adds to every scraped series, and the bucket bound of a histogram's series. */
const TARGET_LABELS = ['instance', 'job'];

/**
 * Every family the gateway defines, with its type: a fresh Metrics declares them all, and on Node
 * the process's own (src/node/process-metrics.ts) are added to it.
 */
const defined = new Map<string, string>();
const metrics = new Metrics();
collectProcessMetrics(metrics)();
for (const line of metrics.render().split('\n')) {
  const m = /^# TYPE (\S+) (\S+)$/.exec(line);
  if (m) defined.set(m[1], m[2]);
}
const histograms = new Set([...defined].filter(([, type]) => type === 'histogram').map(([n]) => n));

describe('the Grafana dashboard', () => {
  it('has a query in every panel but its rows, and queries the families it is about', () => {
    for (const p of dashboard.panels)
      if (p.type !== 'row') expect(p.targets?.length, `panel "${p.title}"`).toBeGreaterThan(0);
    const families = new Set(
      panelQueries().flatMap((q) => namesIn(q.expr).metrics.map((n) => familyOf(n, histograms))),
    );
    expect([...families].sort()).toEqual([
      'hookgate_approvals_total',
      'hookgate_backend_failures_total',
      'hookgate_call_duration_seconds',
      'hookgate_calls_total',
      'hookgate_config_reloads_total',
      'hookgate_decisions_total',
      'hookgate_policy_refusals_total',
      'hookgate_rate_limited_total',
      'hookgate_shadow_decisions_total',
      'hookgate_ws_connections',
      'nodejs_gc_duration_seconds',
      'process_cpu_seconds_total',
    ]);
  });

  it('names only metrics the gateway defines (a histogram by its series)', () => {
    const named = [
      ...panelQueries().flatMap((q) => namesIn(q.expr).metrics.map((m) => ({ where: q.panel, m }))),
      ...variableQueries().flatMap((v) =>
        namesIn(v.selector).metrics.map((m) => ({ where: `$${v.name}`, m })),
      ),
    ];
    expect(named.length).toBeGreaterThan(0);
    for (const { where, m } of named) {
      const family = familyOf(m, histograms);
      expect(defined.has(family), `${where}: ${m} is not a metric the gateway defines`).toBe(true);
      // A histogram is queried by its series, a counter or gauge by its own name.
      expect(histograms.has(family) ? m !== family : m === family, `${where}: ${m}`).toBe(true);
    }
  });

  it('reads the expression reader right (so the checks above can fail)', () => {
    expect(
      namesIn(
        'histogram_quantile(0.99, sum by (tenant, le) (rate(hookgate_call_duration_seconds_bucket{hook=~"$hook"}[$__rate_interval])))',
      ),
    ).toEqual({ metrics: ['hookgate_call_duration_seconds_bucket'], labels: ['tenant', 'le', 'hook'] });
    expect(namesIn('sum(rate(hookgate_calls_totl[5m]))').metrics).toEqual(['hookgate_calls_totl']);
    expect(defined.has('hookgate_calls_totl')).toBe(false);
  });
});

describe("the dashboard's labels, against a real gateway's /metrics", () => {
  const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
  const deny = { name: 'no-rm', kind: 'shell', when: 'call.command.contains("rm -rf")', action: 'deny' };
  const ask = { name: 'push', kind: 'shell', when: 'call.command.contains("git push")', action: 'ask_human' };
  const doc = {
    tenants: {
      acme: tenantDoc({
        guard: { ...rec, modes: ['tool'], rules: [deny, ask] },
        trial: { ...rec, modes: ['tool'], mode: 'shadow', rules: [deny] },
        limited: { ...rec, modes: ['tool'], limits: { calls_per_second: 0.001 } },
      }),
    },
  };
  let gw: TestGateway;
  /** Each family's label names over its samples. */
  const labelsOf = new Map<string, Set<string>>();

  beforeAll(async () => {
    gw = await startTestGateway(doc, { loadConfig: () => ({ config: compileTestConfig(doc) }) });
  });
  afterAll(() => gw?.close());

  /** Calls that give every family the dashboard queries a sample; then the labels of each family. */
  async function scrape(): Promise<void> {
    recorder().answer = (_m, params) => (params.tool === 'broken' ? 'not an answer' : { action: 'continue' });
    const exec = (command: string) => ({ tool: 'exec', arguments: { command } });
    await gw.call('guard', 'hook.before_tool', exec('ls'));
    await gw.call('guard', 'hook.before_tool', exec('rm -rf /'));
    await gw.call('trial', 'hook.before_tool', exec('rm -rf /'));
    await gw.call('guard', 'hook.before_tool', { tool: 'broken', arguments: {} });
    await gw.call('limited', 'hook.before_tool', exec('ls'));
    await expect(gw.call('limited', 'hook.before_tool', exec('ls'))).rejects.toThrow(/HTTP 429/);
    const held = gw.call('guard', 'hook.before_tool', exec('git push'));
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(1);
    const [request] = await gw.approvals.pending('acme');
    await gw.approvals.decide('acme', request!.id, { approve: true, approver: 'alice' });
    await held;
    expect(await gw.reload()).toMatchObject({ ok: true });
    const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/guard/ws`, {
      headers: { authorization: `Bearer ${await gw.token()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const text = await gw.metricsText();
    ws.close();
    const exposition = parseExposition(text);
    const histogramNames = new Set(
      [...exposition.types].filter(([, t]) => t === 'histogram').map(([n]) => n),
    );
    for (const s of exposition.samples) {
      const family = familyOf(s.name, histogramNames);
      const set = labelsOf.get(family) ?? new Set<string>();
      for (const l of Object.keys(s.labels)) set.add(l);
      labelsOf.set(family, set);
    }
  }

  it('groups and filters each metric only by labels its samples carry', async () => {
    await scrape();
    const queries = [
      ...panelQueries(),
      ...variableQueries().map((v) => ({ panel: `$${v.name}`, expr: `${v.selector} by (${v.label})` })),
    ];
    for (const q of queries) {
      const { metrics, labels } = namesIn(q.expr);
      for (const m of metrics) {
        const family = familyOf(m, histograms);
        const carried = labelsOf.get(family);
        expect(carried, `${q.panel}: ${family} has no sample after the calls`).toBeDefined();
        const allowed = new Set([
          ...(carried ?? []),
          ...TARGET_LABELS,
          ...(m.endsWith('_bucket') ? ['le'] : []),
        ]);
        for (const l of labels)
          expect(allowed.has(l), `${q.panel}: ${family} has no label "${l}"`).toBe(true);
      }
    }
  });
});

/** promtool from PATH, or where `go install` puts it. */
function findPromtool(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter);
  try {
    dirs.push(join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim(), 'bin'));
  } catch {
    // No Go toolchain: PATH only.
  }
  return dirs.map((d) => join(d, 'promtool')).find((p) => existsSync(p));
}

const promtool = findPromtool();
const PROMTOOL_NOTE = promtool
  ? ''
  : ' (skipped: promtool is not installed; go install github.com/prometheus/prometheus/cmd/promtool@v0.316.0)';

describe.skipIf(!promtool)(`the dashboard's PromQL, parsed by promtool${PROMTOOL_NOTE}`, () => {
  it('parses every expression as a recording rule, and would refuse one that does not parse', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-dashboard-'));
    try {
      const check = (exprs: string[]) => {
        const rules = exprs.map(
          (e, i) => `      - record: hookgate:dashboard:${i}\n        expr: ${JSON.stringify(plain(e))}`,
        );
        const file = join(dir, 'rules.yml');
        writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`);
        try {
          return {
            ok: true,
            out: execFileSync(promtool!, ['check', 'rules', file], {
              encoding: 'utf8',
              stdio: ['ignore', 'pipe', 'pipe'],
            }),
          };
        } catch (err: any) {
          return { ok: false, out: `${err.stdout}${err.stderr}` };
        }
      };
      const exprs = panelQueries().map((q) => q.expr);
      const result = check(exprs);
      expect(result.out).toContain(`SUCCESS: ${exprs.length} rules found`);
      expect(result.ok).toBe(true);
      expect(check(['sum(rate(hookgate_calls_total[5m])']).ok).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
