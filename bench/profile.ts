/**
 * Profiles the gateway under the benchmark's load: the gateway child runs under `node --cpu-prof`,
 * this process drives one path, then the .cpuprofile is summarised (top self time by function and by
 * file/package).
 *
 *   npx tsx bench/profile.ts [--path ws|http|http-cc|mcp|ws-stdio|bridge|ws-floor|http-floor|hono-floor] [--msg small|large] [--seconds 5]
 *   (`http-cc`: the Claude Code route, the small message as a PreToolUse; `mcp`: the MCP route's
 *   tools/call for get_weather, whatever --msg says)
 *                            [--conns 1|64] [--in-flight 64|1] [--cache on|off] [--top 30]
 *   npx tsx bench/profile.ts --summarise FILE.cpuprofile [--top 30]
 *   npx tsx bench/profile.ts --idle [--conns 2000] [--keep]   heap of idle WebSockets: what one connection keeps
 *
 * `--path bridge` profiles the bridge process instead (the gateway runs unprofiled).
 * Profiles go to bench/results/profiles/ (not committed).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { type Client, concurrent, HttpClient, StdioClient, WsClient } from './lib/clients.js';
import {
  benchToken,
  freshSecret,
  hookPath,
  MODULE_HOOK,
  REPO_ROOT,
  SECRET_ENV,
  STDIO_HOOK,
} from './lib/config.js';
import { forkTs, procCpuMicros } from './lib/ipc.js';
import { McpHttpClient } from './lib/mcp-client.js';
import { type MessageName, template } from './lib/messages.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function shortUrl(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const root = REPO_ROOT.endsWith('/') ? REPO_ROOT : `${REPO_ROOT}/`;
  return url.replace(`file://${root}`, '').replace(root, '');
}

function bucketOf(url: string): string {
  if (!url) return '(native / VM)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return shortUrl(url);
}

/**
 * Self time per function and per file/package, from the samples' time deltas. `window` (monotonic
 * microseconds, the profiler's clock) keeps only the samples of the measured window, so start-up
 * and warm-up do not count.
 */
export function summarise(file: string, top = 30, window?: { from: number; to: number }): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let ts = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    ts += profile.timeDeltas[i] ?? 0;
    if (window && (ts < window.from || ts > window.to)) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  let idle = 0;
  const fn = new Map<string, number>();
  const bucket = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const name = n.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += us;
      continue;
    }
    const key =
      n.callFrame.url || name.startsWith('(')
        ? `${name}  ${shortUrl(n.callFrame.url)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`
        : `${name}  (native)`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const b = name === '(garbage collector)' ? '(garbage collector)' : bucketOf(n.callFrame.url);
    bucket.set(b, (bucket.get(b) ?? 0) + us);
  }
  // Inclusive time of the project's own functions (src/, examples/): what each of them costs with
  // everything it calls, e.g. a middleware that makes the runtime build a Request.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n) break;
      const url = n.callFrame.url;
      if (!/\/(src|examples)\//.test(url) || url.includes('node_modules')) continue;
      const key = `${n.callFrame.functionName || '(anonymous)'}  ${shortUrl(url)}:${n.callFrame.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const busy = total - idle;
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const ms = (us: number) => `${(us / 1000).toFixed(1).padStart(8)} ms`;
  const lines = [
    `profile ${file}`,
    `busy ${ms(busy)} of ${ms(total)} sampled (${((100 * busy) / total).toFixed(0)}% busy); percentages are of busy time`,
    '',
    `top ${top} functions by self time:`,
  ];
  for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`${pct(us)} ${ms(us)}  ${k}`);
  lines.push('', 'self time by file / package:');
  for (const [k, us] of [...bucket].sort((a, b) => b[1] - a[1]).slice(0, 25))
    lines.push(`${pct(us)} ${ms(us)}  ${k}`);
  lines.push(
    '',
    'inclusive time of project functions (src/, examples/; line numbers are of the transpiled code):',
  );
  for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 25))
    lines.push(`${pct(us)} ${ms(us)}  ${k}`);
  return lines.join('\n');
}

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Count and self size per (type, constructor name) of a .heapsnapshot. */
function heapCensus(file: string): Map<string, { count: number; size: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    const raw = snap.strings[snap.nodes[i + iName]];
    const name =
      type === 'object' || type === 'closure' || type === 'native' || type === 'hidden'
        ? `${type === 'object' ? '' : `(${type}) `}${raw.slice(0, 60)}`
        : `(${type})`;
    const e = out.get(name) ?? { count: 0, size: 0 };
    e.count++;
    e.size += snap.nodes[i + iSize];
    out.set(name, e);
  }
  return out;
}

/** What an idle WebSocket keeps in the gateway's heap: census after minus before, per connection. */
async function idleHeap(conns: number, top: number): Promise<void> {
  const dir = join(REPO_ROOT, 'bench/results/profiles');
  mkdirSync(dir, { recursive: true });
  process.env[SECRET_ENV] = freshSecret();
  const token = await benchToken();
  const gw = forkTs(
    'gateway (idle heap)',
    join(REPO_ROOT, 'bench/children/gateway.ts'),
    [JSON.stringify({ stdio: false })],
    {
      execArgv: ['--expose-gc'],
      cwd: REPO_ROOT,
    },
  );
  const holder = forkTs('holder', join(REPO_ROOT, 'bench/children/holder.ts'), [], { cwd: REPO_ROOT });
  const info = await gw.ready;
  await holder.ready;
  const url = `${info.url.replace(/^http/, 'ws')}${hookPath(MODULE_HOOK)}/ws`;
  try {
    // Warm-up with as many connections (see run.ts idleTest), so the delta is what connections keep.
    await holder.request('open', { url, token, count: conns, concurrency: 50, deadlineMs: 60_000 }, 90_000);
    await holder.request('close', undefined, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    const a = await gw.request<string>('heapSnapshot', { dir }, 120_000);
    const memA = await gw.request<NodeJS.MemoryUsage>('mem', { gc: true });
    const opened = await holder.request<{ opened: number }>(
      'open',
      { url, token, count: conns, concurrency: 50, deadlineMs: 60_000 },
      90_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    const memB = await gw.request<NodeJS.MemoryUsage>('mem', { gc: true });
    const b = await gw.request<string>('heapSnapshot', { dir }, 120_000);
    const n = opened.opened;
    const ca = heapCensus(a);
    const cb = heapCensus(b);
    const rows = [...cb].map(([k, v]) => {
      const before = ca.get(k) ?? { count: 0, size: 0 };
      return { k, count: (v.count - before.count) / n, size: (v.size - before.size) / n };
    });
    const total = rows.reduce((s, r) => s + r.size, 0);
    // No RSS here: writing a heap snapshot grows the process by more than the connections do.
    process.stdout.write(
      `${n} idle WebSockets: JS heap ${((memB.heapUsed - memA.heapUsed) / n / 1024).toFixed(1)} KiB/conn ` +
        `(snapshot self sizes: ${(total / 1024).toFixed(1)} KiB/conn)\n\n` +
        `top ${top} by bytes per connection (count per connection, type or constructor):\n`,
    );
    for (const r of rows.sort((x, y) => y.size - x.size).slice(0, top)) {
      process.stdout.write(
        `${r.size.toFixed(0).padStart(7)} B  ${r.count.toFixed(2).padStart(6)}×  ${r.k}\n`,
      );
    }
    if (process.argv.includes('--keep')) process.stdout.write(`\nsnapshots kept: ${a} ${b}\n`);
    else for (const f of [a, b]) rmSync(f, { force: true });
  } finally {
    await Promise.all([holder.stop(), gw.stop()]);
  }
}

/** The bridge under `--cpu-prof`: PicoClaw's side is this process, NDJSON on the bridge's stdio. */
async function profileBridge(
  dir: string,
  prof: string[],
  msg: MessageName,
  seconds: number,
  top: number,
  token: string,
  inFlight = 64,
): Promise<void> {
  const gw = forkTs(
    'gateway',
    join(REPO_ROOT, 'bench/children/gateway.ts'),
    [JSON.stringify({ stdio: false })],
    {
      cwd: REPO_ROOT,
    },
  );
  const info = await gw.ready;
  const url = `${info.url.replace(/^http/, 'ws')}${hookPath(MODULE_HOOK)}/ws`;
  const proc = spawn(
    process.execPath,
    [...prof, 'bin/hookgate.js', 'bridge', '--url', url, '--transport', 'ws', '--log-level', 'warn'],
    { cwd: REPO_ROOT, env: { ...process.env, HOOKGATE_TOKEN: token }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  proc.stderr.pipe(process.stderr);
  const bridge = new StdioClient('bridge', proc);
  await bridge.hello('weather');
  const t = template(msg);
  await concurrent([bridge], t, { workers: inFlight, max: 1_000_000, timeMs: 1000 });
  const cpu0 = procCpuMicros(proc.pid!);
  const g0 = await gw.cpuMicros();
  const r = await concurrent([bridge], t, { workers: inFlight, max: 10_000_000, timeMs: seconds * 1000 });
  const cpu1 = procCpuMicros(proc.pid!);
  const g1 = await gw.cpuMicros();
  process.stdout.write(
    `bridge ${msg}, ${inFlight} in flight: ${(r.calls / r.seconds).toFixed(0)} calls/s, bridge CPU ${((cpu1 - cpu0) / r.calls).toFixed(1)} µs/call, ` +
      `gateway CPU ${((g1 - g0) / r.calls).toFixed(1)} µs/call, errors ${bridge.errors}\n\n`,
  );
  const before = new Set(readdirSync(dir));
  await bridge.close();
  await gw.stop();
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && !before.has(f) && f.includes(`.${proc.pid}.0.`))
    .map((f) => join(dir, f))[0];
  if (!file) throw new Error('the bridge wrote no .cpuprofile');
  // The bridge's whole life is profiled (it has no IPC); the load window dominates it.
  process.stdout.write(`${summarise(file, top)}\n`);
}

async function main(): Promise<void> {
  const top = Number(flag('top', '30'));
  if (process.argv.includes('--idle')) {
    await idleHeap(Number(flag('conns', '2000')), top);
    return;
  }
  const given = flag('summarise', '');
  if (given) {
    process.stdout.write(`${summarise(given, top)}\n`);
    return;
  }
  const pathKind = flag('path', 'ws');
  const msg = flag('msg', 'small') as MessageName;
  const seconds = Number(flag('seconds', '5'));
  const conns = Number(
    flag(
      'conns',
      pathKind.startsWith('http') || pathKind === 'mcp' || /^(http|hono)-floor$/.test(pathKind) ? '64' : '1',
    ),
  );
  const cache = flag('cache', 'on') !== 'off';
  const inFlight = Number(flag('in-flight', '64'));
  const dir = join(REPO_ROOT, 'bench/results/profiles');
  mkdirSync(dir, { recursive: true });

  process.env[SECRET_ENV] = freshSecret();
  const token = await benchToken();
  const prof = ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '200'];
  if (pathKind === 'bridge') {
    await profileBridge(dir, prof, msg, seconds, top, token, inFlight);
    return;
  }
  const floor = pathKind.endsWith('-floor') ? pathKind.slice(0, -'-floor'.length) : undefined;
  const gw = floor
    ? forkTs(`${floor} floor (profiled)`, join(REPO_ROOT, 'bench/children/floor.ts'), [floor], {
        execArgv: prof,
        cwd: REPO_ROOT,
      })
    : forkTs(
        'gateway (profiled)',
        join(REPO_ROOT, 'bench/children/gateway.ts'),
        [JSON.stringify({ stdio: pathKind === 'ws-stdio', tokenCacheSize: cache ? undefined : 0 })],
        { execArgv: prof, cwd: REPO_ROOT },
      );
  const info = await gw.ready;
  const hook = pathKind === 'ws-stdio' ? STDIO_HOOK : MODULE_HOOK;
  const t = template(msg);
  let clients: Client[];
  if (pathKind === 'mcp') {
    clients = [await McpHttpClient.open('mcp', `${info.url}${hookPath(hook)}/mcp`, token, conns)];
  } else if (pathKind === 'http-cc') {
    clients = [
      new HttpClient('http cc', info.url, `${hookPath(hook)}/claude-code`, token, conns, 'claude-code'),
    ];
  } else if (pathKind === 'http' || floor === 'http' || floor === 'hono') {
    clients = [new HttpClient('http', info.url, hookPath(hook), token, conns)];
  } else {
    const url = `${info.url.replace(/^http/, 'ws')}${hookPath(hook)}/ws`;
    clients = await Promise.all(
      Array.from({ length: conns }, (_, i) => WsClient.open(`ws ${i}`, url, token)),
    );
  }
  await concurrent(clients, t, { workers: inFlight, max: 1_000_000, timeMs: 1000 }); // warm-up
  const from = await gw.request<number>('now');
  const cpu0 = await gw.cpuMicros();
  const r = await concurrent(clients, t, { workers: inFlight, max: 10_000_000, timeMs: seconds * 1000 });
  const cpu1 = await gw.cpuMicros();
  const to = await gw.request<number>('now');
  const errors = clients.reduce((a, c) => a + c.errors, 0);
  process.stdout.write(
    `${pathKind} ${msg}, ${conns} connection(s), ${inFlight} in flight, token cache ${cache ? 'on' : 'off'}: ` +
      `${r.calls} calls in ${r.seconds.toFixed(1)} s = ${(r.calls / r.seconds).toFixed(0)} calls/s, ` +
      `gateway CPU ${((cpu1 - cpu0) / r.calls).toFixed(1)} µs/call, errors ${errors}\n\n`,
  );
  await Promise.all(clients.map((c) => c.close()));
  const before = new Set(readdirSync(dir));
  await gw.stop(10_000);
  // One profile per thread (tsx's loader hooks run on their own thread): take the main thread's (id 0).
  const mine = readdirSync(dir).filter(
    (f) => f.endsWith('.cpuprofile') && !before.has(f) && f.includes(`.${info.pid}.0.`),
  );
  const file = mine.map((f) => join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!file) throw new Error('no .cpuprofile written');
  process.stdout.write(`${summarise(file, top, { from, to })}\n`);
}

await main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
