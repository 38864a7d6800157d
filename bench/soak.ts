/**
 * Soak: does the gateway keep answering, and keep its memory, over minutes of mixed traffic?
 *
 * One gateway process (bench/children/soak-gateway.ts, run with --expose-gc) hosts several tenants,
 * each with the weather hook as an in-process `module` and as a hosted `stdio` process, under
 * tenant limits generous enough never to refuse (so the limiter is on the path). A paced load from
 * this process mixes, per tenant and hook: a long-lived WebSocket, keep-alive HTTP, a fresh
 * WebSocket per second (a few calls, then closed) and an HTTP call on a fresh connection, with one
 * large `before_llm` call in twenty. Every answer is checked (`respond` for get_weather, `continue`
 * for the large call).
 *
 * Every `--sample-s` it records the gateway's RSS (/proc), V8 heap used and total, calls, errors and
 * latency; every `--gc-every` samples it also forces a full GC in the gateway and records the heap
 * that is still live. A leak shows as live heap growing; collector sizing as RSS and heap total
 * growing to a plateau while the live heap stays flat.
 *
 *   npm run bench:soak                          # 10 minutes, 300 calls/s
 *   npm run bench:soak -- --minutes 2 --rate 200
 *   npm run bench:soak -- --node-flag=--max-old-space-size=64   # the same under a smaller heap limit
 *   npm run bench:soak -- --snapshots           # heap snapshots after warm-up and at the end
 *
 * Writes bench/results/soak-<time>.json. Exit code 1 when any call failed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileConfig } from '../src/config/compile.js';
import { signDevToken } from '../src/node/token.js';
import { type Client, HttpClient, WsClient } from './lib/clients.js';
import { REPO_ROOT } from './lib/config.js';
import { forkTs, procRssBytes } from './lib/ipc.js';
import { type MessageTemplate, template } from './lib/messages.js';
import { percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '300' },
    tenants: { type: 'string', default: '3' },
    'sample-s': { type: 'string', default: '10' },
    'gc-every': { type: 'string', default: '3' },
    kinds: { type: 'string', default: 'ws,http,ws-churn,http-fresh' },
    hooks: { type: 'string', default: 'weather,weather_stdio' },
    'warmup-fraction': { type: 'string', default: '0.2' },
    sandbox: { type: 'string', default: 'auto' },
    'node-flag': { type: 'string', multiple: true, default: [] },
    snapshots: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const durationMs = Number(values.minutes) * 60_000;
const rate = Number(values.rate);
const tenantCount = Number(values.tenants);
const sampleMs = Number(values['sample-s']) * 1000;
const gcEvery = Number(values['gc-every']);
const warmupFraction = Number(values['warmup-fraction']);
for (const [name, v] of Object.entries({
  minutes: durationMs,
  rate,
  tenants: tenantCount,
  sampleMs,
  gcEvery,
})) {
  if (!(v > 0)) throw new Error(`--${name} must be a positive number`);
}
if (!['auto', 'required', 'off'].includes(values.sandbox))
  throw new Error('--sandbox: auto, required or off');
const KINDS = ['ws', 'http', 'ws-churn', 'http-fresh'];
const kinds = values.kinds.split(',');
if (kinds.some((k) => !KINDS.includes(k))) throw new Error(`--kinds: some of ${KINDS.join(',')}`);

const MiB = 1024 * 1024;
const secrets: Record<string, string> = { SOAK_ADMIN_TOKEN: randomBytes(32).toString('base64url') };
const tenantNames = Array.from({ length: tenantCount }, (_, i) => `soak${i + 1}`);
const hookBase = { modes: ['llm', 'tool'], tools: ['get_weather'], on_failure: 'open', timeout_ms: 4000 };
const HOOKS: Record<string, unknown> = {
  weather: { backend: { type: 'module', module: 'examples/weather-sdk.ts' }, ...hookBase },
  weather_stdio: {
    backend: { type: 'stdio', command: [process.execPath, '--import', 'tsx', 'examples/weather-sdk.ts'] },
    ...hookBase,
  },
};

const hookNames = values.hooks.split(',');
if (hookNames.some((h) => !(h in HOOKS))) throw new Error('--hooks: some of weather,weather_stdio');

function configDocument(): Record<string, unknown> {
  const tenants: Record<string, unknown> = {};
  for (const name of tenantNames) {
    const env = `SOAK_SECRET_${name.toUpperCase()}`;
    secrets[env] = randomBytes(32).toString('base64url');
    tenants[name] = {
      auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: `env:${env}` }] },
      // Far above the load: the limiter decides every call, and refuses none.
      limits: { calls_per_second: rate * 10, max_in_flight: 1000 },
      hooks: Object.fromEntries(hookNames.map((h) => [h, HOOKS[h]])),
    };
  }
  return {
    server: {
      host: '127.0.0.1',
      port: 0,
      log_level: 'warn',
      admin_token: 'env:SOAK_ADMIN_TOKEN',
      sandbox: values.sandbox,
    },
    tenants,
  };
}

/** One kind of traffic for one tenant and hook; `call` makes one checked call. */
interface Stream {
  label: string;
  call(t: MessageTemplate): Promise<void>;
  errors(): number;
  lastError(): string | undefined;
  close(): Promise<void>;
}

function persistent(client: Client): Stream {
  return {
    label: client.label,
    call: (t) => client.call(t),
    errors: () => client.errors,
    lastError: () => client.lastError,
    close: () => client.close(),
  };
}

/**
 * A fresh WebSocket per `every` calls: opened (upgrade and auth each time), used, and closed once
 * its last call is answered.
 */
function churningWs(label: string, url: string, token: string, every: number): Stream {
  interface Conn {
    client: Promise<WsClient>;
    ws?: WsClient;
    used: number;
    inFlight: number;
  }
  let errors = 0;
  let lastError: string | undefined;
  let current: Conn | undefined;
  const retire = (c: Conn) => {
    if (c.used < every || c.inFlight > 0) return;
    if (c.ws) {
      errors += c.ws.errors;
      lastError = c.ws.lastError ?? lastError;
      void c.ws.close();
    }
  };
  const open = (): Conn => {
    const c: Conn = { client: WsClient.open(label, url, token), used: 0, inFlight: 0 };
    c.client.then(
      (ws) => {
        c.ws = ws;
      },
      () => {},
    );
    return c;
  };
  return {
    label,
    async call(t) {
      if (!current || current.used >= every) current = open();
      const c = current;
      c.used++;
      c.inFlight++;
      try {
        await (await c.client).call(t);
      } catch (err) {
        errors++;
        lastError = err instanceof Error ? err.message : String(err);
      } finally {
        c.inFlight--;
        retire(c);
      }
    },
    errors: () => errors + (current?.ws?.errors ?? 0),
    lastError: () => current?.ws?.lastError ?? lastError,
    async close() {
      await current?.ws?.close();
    },
  };
}

/** HTTP on a fresh connection every call (no keep-alive). */
function freshHttp(label: string, url: string, path: string, token: string): Stream {
  const client = new HttpClient(label, url, path, token, 1);
  // HttpClient keeps its connections alive; this stream swaps in an agent that does not.
  (client as unknown as { agent: Agent }).agent = new Agent({ keepAlive: false });
  return persistent(client);
}

interface Sample {
  t_s: number;
  calls: number;
  errors: number;
  calls_per_s: number;
  p50_ms: number;
  p99_ms: number;
  rss_mib: number;
  heap_used_mib: number;
  heap_total_mib: number;
  external_mib: number;
  array_buffers_mib: number;
  live_heap_mib?: number;
  rss_after_gc_mib?: number;
  sessions: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-soak-'));
  const doc = configDocument();
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(doc));
  const env = { ...process.env, ...secrets };
  const config = compileConfig(doc, (ref) => (ref.startsWith('env:') ? env[ref.slice(4)]! : ref));

  const gateway = forkTs('soak gateway', join(REPO_ROOT, 'bench/children/soak-gateway.ts'), [file], {
    execArgv: ['--expose-gc', ...(values['node-flag'] ?? [])],
    env,
    cwd: REPO_ROOT,
  });
  const { url, pid } = (await gateway.ready) as { url: string; pid: number };
  const wsUrl = url.replace('http', 'ws');
  console.log(
    `soak: ${values.minutes} min, ${rate} calls/s, ${tenantCount} tenants × (module, stdio), gateway pid ${pid}` +
      (values['node-flag']?.length ? `, node ${values['node-flag'].join(' ')}` : ''),
  );

  const streams: Stream[] = [];
  for (const tenant of tenantNames) {
    const token = await signDevToken(config.tenants.get(tenant)!, { hooks: ['*'], ttlSeconds: 24 * 3600 });
    for (const hook of hookNames) {
      const path = `/v1/tenants/${tenant}/hooks/${hook}`;
      const label = `${tenant}/${hook}`;
      if (kinds.includes('ws')) {
        streams.push(persistent(await WsClient.open(`${label} ws`, `${wsUrl}${path}/ws`, token)));
      }
      if (kinds.includes('http'))
        streams.push(persistent(new HttpClient(`${label} http`, url, path, token, 2)));
      if (kinds.includes('ws-churn'))
        streams.push(churningWs(`${label} ws-churn`, `${wsUrl}${path}/ws`, token, 10));
      if (kinds.includes('http-fresh')) streams.push(freshHttp(`${label} http-fresh`, url, path, token));
    }
  }
  const small = template('small');
  const large = template('large');
  // Before any call: what the gateway holds idle (clients connected, hooks started).
  const idleMem = await gateway.request<NodeJS.MemoryUsage>('mem', { gc: true });
  const idle = { rss_mib: round(procRssBytes(pid) / MiB), live_heap_mib: round(idleMem.heapUsed / MiB) };
  console.log(`idle, before the first call: RSS ${idle.rss_mib} MiB, live heap ${idle.live_heap_mib} MiB`);

  // Paced: every tick issues the calls due by the clock (so a late tick catches up) round-robin
  // over the streams, without waiting for answers; a stream with too many calls outstanding skips
  // its turn (counted) rather than piling up calls on a stalled gateway.
  const TICK_MS = 20;
  const MAX_OUTSTANDING = 64;
  const outstanding = new Map<Stream, number>();
  let issued = 0;
  let answered = 0;
  let skipped = 0;
  let latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const issue = () => {
    const due = Math.floor(((performance.now() - started) * rate) / 1000);
    while (next < due) {
      const s = streams[next++ % streams.length];
      const n = outstanding.get(s) ?? 0;
      if (n >= MAX_OUTSTANDING) {
        skipped++;
        continue;
      }
      outstanding.set(s, n + 1);
      const t = issued++ % 20 === 19 ? large : small;
      const t0 = performance.now();
      void s.call(t).then(() => {
        latencies.push(performance.now() - t0);
        answered++;
        outstanding.set(s, (outstanding.get(s) ?? 1) - 1);
      });
    }
  };
  const ticker = setInterval(issue, TICK_MS);

  const errorsNow = () => streams.reduce((sum, s) => sum + s.errors(), 0);
  const samples: Sample[] = [];
  let lastAnswered = 0;
  let lastAt = started;
  const header =
    '   t_s    calls  errors  calls/s  p50_ms  p99_ms  rss_MiB  heap_used  heap_total  external  live_heap(gc)';
  console.log(header);
  for (let i = 1; ; i++) {
    const due = started + i * sampleMs;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    const now = performance.now();
    const window = latencies.sort((a, b) => a - b);
    latencies = [];
    const mem = await gateway.request<NodeJS.MemoryUsage>('mem', { gc: false });
    const sample: Sample = {
      t_s: Math.round((now - started) / 1000),
      calls: answered,
      errors: errorsNow(),
      calls_per_s: Math.round(((answered - lastAnswered) * 1000) / (now - lastAt)),
      p50_ms: round(percentile(window, 50)),
      p99_ms: round(percentile(window, 99)),
      rss_mib: round(procRssBytes(pid) / MiB),
      heap_used_mib: round(mem.heapUsed / MiB),
      heap_total_mib: round(mem.heapTotal / MiB),
      external_mib: round(mem.external / MiB),
      array_buffers_mib: round(mem.arrayBuffers / MiB),
      sessions: await gateway.request<number>('sessions'),
    };
    if (i % gcEvery === 0) {
      const after = await gateway.request<NodeJS.MemoryUsage>('mem', { gc: true });
      sample.live_heap_mib = round(after.heapUsed / MiB);
      sample.rss_after_gc_mib = round(procRssBytes(pid) / MiB);
    }
    lastAnswered = answered;
    lastAt = now;
    samples.push(sample);
    console.log(
      [
        pad(sample.t_s, 6),
        pad(sample.calls, 8),
        pad(sample.errors, 7),
        pad(sample.calls_per_s, 8),
        pad(sample.p50_ms, 7),
        pad(sample.p99_ms, 7),
        pad(sample.rss_mib, 8),
        pad(sample.heap_used_mib, 10),
        pad(sample.heap_total_mib, 11),
        pad(sample.external_mib, 9),
        pad(sample.live_heap_mib ?? '', 14),
      ].join(' '),
    );
    if (
      values.snapshots &&
      (i === Math.round((durationMs * warmupFraction) / sampleMs) || i * sampleMs >= durationMs)
    ) {
      const snapDir = join(REPO_ROOT, 'bench/results/profiles');
      mkdirSync(snapDir, { recursive: true });
      console.log(`  heap snapshot: ${await gateway.request('heapSnapshot', { dir: snapDir }, 120_000)}`);
    }
    if (i * sampleMs >= durationMs) break;
  }
  clearInterval(ticker);
  // Let the calls in flight finish (each is bounded by the hook's deadline).
  const drainUntil = performance.now() + 10_000;
  while (answered < issued && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 50));

  const logs = await gateway.request<{ levels: Record<string, number>; last: string[] }>('logs');
  await Promise.all(streams.map((s) => s.close().catch(() => {})));
  await gateway.stop();

  const summary = summarise(samples);
  const errors = errorsNow();
  const failing = streams
    .filter((s) => s.errors() > 0)
    .map((s) => `${s.label}: ${s.errors()} (${s.lastError()})`);
  const result = {
    when: new Date().toISOString(),
    options: { ...values, minutes: Number(values.minutes) },
    issued,
    answered,
    skipped,
    unanswered: issued - answered,
    errors,
    failing,
    gateway_log_lines_by_level: logs.levels,
    idle,
    summary,
    samples,
  };
  const out =
    values.json ??
    join(REPO_ROOT, `bench/results/soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

  console.log(
    `\ncalls: ${answered} answered of ${issued} issued (${skipped} skipped: stream busy), errors: ${errors}`,
  );
  for (const f of failing) console.log(`  ${f}`);
  console.log(`gateway log lines by level: ${JSON.stringify(logs.levels)}`);
  for (const line of logs.last.slice(-5)) console.log(`  ${line}`);
  console.log(
    `after warm-up (${summary.warmup_s} s): RSS ${summary.rss_after_warmup_mib} → ${summary.rss_end_mib} MiB ` +
      `(min ${summary.rss_min_mib}, max ${summary.rss_max_mib}; slope ${summary.rss_slope_mib_per_min} MiB/min), ` +
      `live heap after GC ${summary.live_heap_after_warmup_mib} → ${summary.live_heap_end_mib} MiB ` +
      `(slope ${summary.live_heap_slope_mib_per_min} MiB/min)`,
  );
  console.log(`results: ${out}`);
  process.exitCode = errors > 0 || result.unanswered > 0 ? 1 : 0;
}

/** The figures the docs quote: RSS and live heap after warm-up, first vs last, and their trend. */
function summarise(samples: Sample[]) {
  const warmupS = (durationMs / 1000) * warmupFraction;
  const after = samples.filter((s) => s.t_s >= warmupS);
  const live = after.filter((s) => s.live_heap_mib !== undefined);
  return {
    warmup_s: warmupS,
    rss_start_mib: samples[0]?.rss_mib,
    rss_after_warmup_mib: after[0]?.rss_mib,
    rss_end_mib: after.at(-1)?.rss_mib,
    rss_min_mib: Math.min(...after.map((s) => s.rss_mib)),
    rss_max_mib: Math.max(...after.map((s) => s.rss_mib)),
    rss_slope_mib_per_min: round(slopePerMin(after.map((s) => [s.t_s, s.rss_mib]))),
    live_heap_after_warmup_mib: live[0]?.live_heap_mib,
    live_heap_end_mib: live.at(-1)?.live_heap_mib,
    live_heap_slope_mib_per_min: round(slopePerMin(live.map((s) => [s.t_s, s.live_heap_mib!]))),
    p50_ms_median: round(
      percentile(
        [...after.map((s) => s.p50_ms)].sort((a, b) => a - b),
        50,
      ),
    ),
    p99_ms_max: Math.max(...after.map((s) => s.p99_ms)),
  };
}

/** Least-squares slope of (seconds, MiB) points, in MiB per minute. */
function slopePerMin(points: Array<[number, number]>): number {
  if (points.length < 2) return Number.NaN;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return (sxy / sxx) * 60;
}

const round = (n: number) => Math.round(n * 10) / 10;
const pad = (v: number | string, w: number) => String(v).padStart(w);

await main();
