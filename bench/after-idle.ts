/**
 * What a pause costs: small HTTP → module calls measured on servers kept warm, and again on servers
 * that first took a burst of 64 KiB calls and then sat idle longer than V8's memory reducer waits
 * (8 s). Each scenario has processes of its own, started for it: the gateway as `npm run bench`
 * starts it, the same gateway under `node --no-memory-reducer`, and the Hono floor. Within a
 * scenario the servers take turns (A B C, then C B A), so ratios compare windows seconds apart.
 *
 *   npx tsx bench/after-idle.ts [--rounds 4] [--idle-s 12]
 *
 * Warm: each turn is 1 s of load (not counted), a 2 s window at 64 connections (CPU per call), then
 * 2 s of sequential calls (p50); no server waits more than about 8 s for its next turn.
 * After idle: each round every server takes 2 s of 64 KiB before_llm calls at 64 connections, all
 * of them then idle `--idle-s`, and each takes 1 s of small calls (not counted) and its 2 s window.
 * Prints a markdown table (docs/performance.md quotes it); RSS is read at the end of each idle.
 */
import { join } from 'node:path';
import { concurrent, HttpClient, sequential } from './lib/clients.js';
import { benchToken, freshSecret, hookPath, MODULE_HOOK, REPO_ROOT, SECRET_ENV } from './lib/config.js';
import { forkTs, procRssBytes, type ServerChild } from './lib/ipc.js';
import { template } from './lib/messages.js';
import { median } from './lib/stats.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i === -1 ? Number.NaN : Number(process.argv[i + 1]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const ROUNDS = flag('rounds', 4);
const IDLE_MS = flag('idle-s', 12) * 1000;
const CONNS = 64;
const small = template('small');
const large = template('large');

interface Server {
  name: string;
  child: ServerChild<{ url?: string; port?: number; pid: number }>;
  url: string;
  pid: number;
  many: HttpClient;
  one: HttpClient;
}

const SERVERS: Array<{ name: string; start: () => ServerChild<any> }> = [
  {
    name: 'gateway',
    start: () =>
      forkTs('gateway', join(REPO_ROOT, 'bench/children/gateway.ts'), [JSON.stringify({ stdio: true })], {
        cwd: REPO_ROOT,
        quiet: true,
      }),
  },
  {
    name: 'gateway, --no-memory-reducer',
    start: () =>
      forkTs(
        'gateway (no memory reducer)',
        join(REPO_ROOT, 'bench/children/gateway.ts'),
        [JSON.stringify({ stdio: true })],
        { cwd: REPO_ROOT, quiet: true, execArgv: ['--no-memory-reducer'] },
      ),
  },
  {
    name: 'Hono floor',
    start: () =>
      forkTs('hono echo', join(REPO_ROOT, 'bench/children/floor.ts'), ['hono'], { cwd: REPO_ROOT }),
  },
];

async function startAll(token: string): Promise<Server[]> {
  const started = SERVERS.map((s) => ({ name: s.name, child: s.start() }));
  return Promise.all(
    started.map(async ({ name, child }) => {
      const info = await child.ready;
      const url = info.url ?? `http://127.0.0.1:${info.port}`;
      const path = hookPath(MODULE_HOOK);
      return {
        name,
        child,
        url,
        pid: info.pid,
        many: new HttpClient(`${name} 64`, url, path, token, CONNS),
        one: new HttpClient(`${name} 1`, url, path, token, 1),
      };
    }),
  );
}

async function stopAll(servers: Server[]): Promise<void> {
  for (const s of servers) {
    await s.many.close();
    await s.one.close();
    await s.child.stop(5_000);
  }
}

/** CPU µs per call of one 64-connection window. */
async function cpuWindow(s: Server, ms: number): Promise<number> {
  await concurrent([s.many], small, { workers: CONNS, max: 10_000_000, timeMs: 1_000 });
  const c0 = await s.child.cpuMicros();
  const r = await concurrent([s.many], small, { workers: CONNS, max: 10_000_000, timeMs: ms });
  const c1 = await s.child.cpuMicros();
  return (c1 - c0) / r.calls;
}

function turnOrder<T>(xs: T[], round: number): T[] {
  return round % 2 === 0 ? xs : [...xs].reverse();
}

function checkErrors(servers: Server[]): void {
  for (const s of servers) {
    for (const c of [s.many, s.one]) {
      if (c.errors > 0) throw new Error(`${c.label}: ${c.errors} wrong answers (${c.lastError})`);
    }
  }
}

interface Figures {
  cpu: number[];
  p50: number[];
  rssMb: number[];
}

/** A scenario's fresh servers, each warmed up, and an empty set of figures for each. */
async function startWarmed(token: string): Promise<{ servers: Server[]; out: Map<string, Figures> }> {
  const servers = await startAll(token);
  const out = new Map(servers.map((s) => [s.name, { cpu: [], p50: [], rssMb: [] } as Figures]));
  for (const s of servers) {
    await concurrent([s.many], small, { workers: CONNS, max: 10_000_000, timeMs: 1_500 });
  }
  return { servers, out };
}

async function warm(token: string): Promise<Map<string, Figures>> {
  const { servers, out } = await startWarmed(token);
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of turnOrder(servers, round)) {
      const f = out.get(s.name)!;
      f.cpu.push(await cpuWindow(s, 2_000));
      const samples = await sequential(s.one, small, { warm: 50, max: 1_000_000, timeMs: 2_000 });
      f.p50.push(median(samples));
    }
  }
  checkErrors(servers);
  await stopAll(servers);
  return out;
}

async function afterIdle(token: string): Promise<Map<string, Figures>> {
  const { servers, out } = await startWarmed(token);
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of turnOrder(servers, round)) {
      await concurrent([s.many], large, { workers: CONNS, max: 10_000_000, timeMs: 2_000 });
    }
    // An idle timer stands in for no traffic: what is measured is what the servers do without load.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    for (const s of servers) out.get(s.name)!.rssMb.push(procRssBytes(s.pid) / 1048576);
    for (const s of turnOrder(servers, round)) out.get(s.name)!.cpu.push(await cpuWindow(s, 2_000));
  }
  checkErrors(servers);
  await stopAll(servers);
  return out;
}

const fmt = (x: number, d = 1) => x.toFixed(d);
const range = (xs: number[], d = 1) => `${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)}`;

async function main(): Promise<void> {
  process.env[SECRET_ENV] = freshSecret();
  const token = await benchToken();
  const floor = 'Hono floor';
  const w = await warm(token);
  const a = await afterIdle(token);
  const lines = [
    `${ROUNDS} rounds; small HTTP → module (hook.before_tool), 64 connections; after idle = 2 s of 64 KiB calls, then ${IDLE_MS / 1000} s without load`,
    '',
    '| server | warm: CPU µs/call | ×Hono | warm: p50 µs (1 conn) | ×Hono | after idle: CPU µs/call | ×Hono | RSS at the end of the idle |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const name of w.keys()) {
    const wf = w.get(name)!;
    const af = a.get(name)!;
    const ratios = (mine: number[], theirs: number[]) => mine.map((x, i) => x / theirs[i]);
    const wCpu = ratios(wf.cpu, w.get(floor)!.cpu);
    const wP50 = ratios(wf.p50, w.get(floor)!.p50);
    const aCpu = ratios(af.cpu, a.get(floor)!.cpu);
    const cell = (rs: number[]) => (name === floor ? '—' : `${fmt(median(rs), 2)}× (${range(rs, 2)})`);
    lines.push(
      `| ${name} | ${fmt(median(wf.cpu))} | ${cell(wCpu)} | ${fmt(median(wf.p50), 0)} | ${cell(wP50)} | ${fmt(median(af.cpu))} | ${cell(aCpu)} | ${fmt(median(af.rssMb), 0)} MiB |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
