/**
 * Why a sandboxed stdio hook's sequential p50 can sit above an unsandboxed one's while its CPU per
 * call is the same: the weather SDK hook spawned directly (no gateway) in several wrappers, one
 * call at a time over NDJSON, rounds interleaved and, within a round, slices of calls taken in turn
 * on every variant (A B C … C B A …), so a ratio compares latencies measured seconds apart.
 *
 *   npx tsx bench/sandbox-latency.ts [--rounds 5] [--slice 400] [--slices 6] [--only plain,bwrap]
 *   npx tsx bench/sandbox-latency.ts --pin                      # the hook pinned to this CPU or the other
 *   npx tsx bench/sandbox-latency.ts --gateway [--modes off,auto,auto-tty,off-setsid,before --before DIR]
 *
 * Variants: `plain` (spawned as the gateway spawns an unsandboxed hook); `setsid` (the same in a
 * session of its own, which on a kernel with sched_autogroup is also a scheduling group of its own);
 * `bwrap-new-session` (hookgate's bubblewrap argv with --new-session, as it always was); `bwrap`
 * (the argv as src/node/sandbox/sandbox.ts plans it now: a session of its own only when this
 * process has a controlling terminal); `bwrap-cgroup` (that argv under the per-hook cgroup step, as
 * the gateway spawns it); `bwrap-net` (sharing the host's network namespace). `--pin` runs this
 * process on CPU 0 and the hook pinned to CPU 0 or 1 (`plain-same-cpu`, `bwrap-other-cpu`, …).
 * Prints per round the p50 of each variant, its ratio to `plain` and CPU per call of the hook's
 * process tree (/proc), and the load average.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { SpawnSpec } from '../src/backends/types.js';
import { detectLimits, limitSpawn } from '../src/node/sandbox/sandbox-limits.js';
import { detectSandbox, planSandbox, wrapInSandbox } from '../src/node/sandbox/sandbox.js';
import { sequential, StdioClient, WsClient } from './lib/clients.js';
import { benchToken, freshSecret, hookPath, REPO_ROOT, SECRET_ENV, STDIO_HOOK } from './lib/config.js';
import { forkTs, ServerChild } from './lib/ipc.js';
import { template } from './lib/messages.js';
import { median, percentile } from './lib/stats.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const ROUNDS = Number(flag('rounds', '5'));
const SLICE = Number(flag('slice', '400'));
const SLICES = Number(flag('slices', '6'));
/** How often the CPU each process last ran on is sampled (a sample delays the call it falls in). */
const SAMPLE_MS = 10;

const HOOK: SpawnSpec = {
  command: process.execPath,
  args: ['--import', 'tsx', 'examples/weather-sdk.ts'],
  cwd: REPO_ROOT,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
};

interface Variant {
  name: string;
  spec: () => SpawnSpec;
  detached?: boolean;
}

function sandboxed(network: boolean, newSession?: boolean): SpawnSpec {
  const support = detectSandbox();
  if (!support.available) throw new Error(`bubblewrap is not usable here: ${support.reason}`);
  const policy = planSandbox(
    {
      command: [HOOK.command, ...HOOK.args],
      cwd: REPO_ROOT,
      env: HOOK.env as Record<string, string>,
      readPaths: [],
      writePaths: [],
      network,
      privatePaths: [],
      foreignPaths: [],
    },
    support,
  );
  return wrapInSandbox(HOOK, newSession === undefined ? policy : { ...policy, newSession });
}

const VARIANTS: Variant[] = [
  { name: 'plain', spec: () => HOOK },
  { name: 'setsid', spec: () => HOOK, detached: true },
  { name: 'bwrap-new-session', spec: () => sandboxed(false, true) },
  { name: 'bwrap', spec: () => sandboxed(false) },
  {
    name: 'bwrap-cgroup',
    spec: () =>
      limitSpawn(sandboxed(false), { pids: 64, memoryBytes: 512 * 2 ** 20 }, detectLimits(), 'bench'),
  },
  { name: 'bwrap-net', spec: () => sandboxed(true) },
  // With --pin this process runs on CPU 0 only: the hook on the same CPU, or always on the other.
  { name: 'plain-same-cpu', spec: () => pinned(HOOK, 0) },
  { name: 'plain-other-cpu', spec: () => pinned(HOOK, 1) },
  { name: 'bwrap-same-cpu', spec: () => pinned(sandboxed(false, true), 0) },
  { name: 'bwrap-other-cpu', spec: () => pinned(sandboxed(false, true), 1) },
];

function pinned(spec: SpawnSpec, cpu: number): SpawnSpec {
  return { ...spec, command: 'taskset', args: ['-c', String(cpu), spec.command, ...spec.args] };
}

const PIN = process.argv.includes('--pin');
if (process.argv.includes('--gateway')) {
  await gatewayMode();
  process.exit(0);
}
const only = flag('only', '');
const chosen = only
  ? VARIANTS.filter((v) => only.split(',').includes(v.name))
  : VARIANTS.filter((v) => PIN === v.name.endsWith('-cpu'));
if (PIN) {
  // Every thread of this process (the load generator) on CPU 0.
  const r = spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset failed: ${r.stderr || r.error?.message}`);
}
if (chosen.length === 0)
  throw new Error(`--only names no variant (have: ${VARIANTS.map((v) => v.name).join(', ')})`);

interface Running {
  variant: Variant;
  client: StdioClient;
  spec: SpawnSpec;
}

async function start(v: Variant): Promise<Running> {
  const spec = v.spec();
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: v.detached ?? false,
  });
  child.stderr.pipe(process.stderr);
  child.once('exit', () => void spec.release?.());
  const client = new StdioClient(v.name, child);
  await client.hello('bench');
  return { variant: v, client, spec };
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

const small = template('small');
const running: Running[] = [];
for (const v of chosen) running.push(await start(v));
console.log(`variants: ${running.map((r) => r.variant.name).join(', ')}; ${SLICES} slices of ${SLICE} calls`);
console.log(
  `scheduling groups (autogroup): this process ${autogroup(process.pid)}; ${running.map((r) => `${r.variant.name} ${autogroup(leafOf(r.client.child.pid!))}`).join(', ')}`,
);

const perRound: Record<string, number[]>[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const samples = new Map<string, number[]>(running.map((r) => [r.variant.name, []]));
    const cpu = new Map<string, number>(running.map((r) => [r.variant.name, 0]));
    const calls = new Map<string, number>(running.map((r) => [r.variant.name, 0]));
    const shared = new Map<string, number[]>(running.map((r) => [r.variant.name, [0, 0]]));
    const load0 = loadAverage();
    for (let s = 0; s < SLICES; s++) {
      const order = (round + s) % 2 === 0 ? running : [...running].reverse();
      for (const r of order) {
        const pid = r.client.child.pid!;
        const tally = shared.get(r.variant.name)!;
        const leaf = leafOf(pid);
        const timer = setInterval(() => {
          const a = lastCpu(process.pid);
          const b = lastCpu(leaf);
          if (a === undefined || b === undefined) return;
          tally[0]! += a === b ? 1 : 0;
          tally[1]! += 1;
        }, SAMPLE_MS);
        const c0 = treeCpuMicros(pid);
        const got = await sequential(r.client, small, { warm: 20, max: SLICE, timeMs: 10_000 });
        cpu.set(r.variant.name, cpu.get(r.variant.name)! + treeCpuMicros(pid) - c0);
        clearInterval(timer);
        calls.set(r.variant.name, calls.get(r.variant.name)! + got.length + 20);
        samples.get(r.variant.name)!.push(...got);
      }
    }
    const p50 = (name: string) => median(samples.get(name)!);
    const base = p50(running[0]!.variant.name);
    const row: Record<string, number[]> = {};
    const parts = running.map((r) => {
      const name = r.variant.name;
      const sorted = [...samples.get(name)!].sort((a, b) => a - b);
      const cpuPer = cpu.get(name)! / calls.get(name)!;
      const [same, n] = shared.get(name)!;
      const one = same! / Math.max(1, n!);
      row[name] = [p50(name), p50(name) / base, percentile(sorted, 99), cpuPer, one];
      return `${name} p50 ${p50(name).toFixed(1)} µs (${(p50(name) / base).toFixed(2)}×) p99 ${percentile(sorted, 99).toFixed(0)} cpu ${cpuPer.toFixed(1)} µs, one CPU with the client ${(100 * one).toFixed(0)}%`;
    });
    perRound.push(row);
    console.log(`round ${round + 1} (load ${load0} → ${loadAverage()}):\n  ${parts.join('\n  ')}`);
  }
  console.log('\nmedian over rounds: p50 µs, ratio to the first variant within a round, hook CPU µs/call');
  for (const r of running) {
    const name = r.variant.name;
    const col = (i: number) => median(perRound.map((row) => row[name]![i]!));
    const ratios = perRound.map((row) => row[name]![1]!);
    console.log(
      `  ${name.padEnd(20)} p50 ${col(0).toFixed(1)}  ratio ${col(1).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})  p99 ${col(2).toFixed(0)}  cpu ${col(3).toFixed(1)}  one CPU ${(100 * col(4)).toFixed(0)}%`,
    );
  }
  const errors = running.reduce((n, r) => n + r.client.errors, 0);
  if (errors > 0) console.log(`errors: ${errors}`);
} finally {
  await Promise.all(running.map((r) => r.client.close()));
}

/**
 * `--gateway`: the same comparison through a real gateway, as users take it (WebSocket → gateway →
 * stdio hook): one gateway with `server.sandbox: auto`, one with `off`, sequential small calls on one
 * WebSocket each, slices interleaved. Also samples, every 10 ms, which CPU the gateway and its
 * hook last ran on (/proc/<pid>/stat, field 39), to show how often they shared one.
 */
async function gatewayMode(): Promise<void> {
  const GATEWAY_MODES = flag('modes', 'off,auto').split(',');
  process.env[SECRET_ENV] ??= freshSecret();
  const token = await benchToken();
  const gateways = await Promise.all(
    GATEWAY_MODES.map(async (mode) => {
      // `before`: server.sandbox auto in another checkout (--before DIR, with this bench/ copied in).
      const root = mode === 'before' ? flag('before', '') : REPO_ROOT;
      if (!root) throw new Error('mode before needs --before DIR');
      const child = mode.endsWith('-tty')
        ? withTerminal(`gateway sandbox ${mode}`, mode.slice(0, -4))
        : forkTs(
            `gateway sandbox ${mode}`,
            `${root}/bench/children/sandbox-gateway.ts`,
            [mode === 'before' ? 'auto' : mode],
            {
              cwd: root,
            },
          );
      const info = (await child.ready) as { url: string; pid: number; hookPid: number; terminal: boolean };
      const url = `${info.url.replace(/^http/, 'ws')}${hookPath(STDIO_HOOK)}/ws`;
      const client = await WsClient.open(`sandbox ${mode}`, url, token);
      const leaf = leafOf(info.hookPid);
      console.log(
        `sandbox ${mode}: gateway in ${autogroup(info.pid)} (${info.terminal ? 'a' : 'no'} controlling terminal), its hook in ${autogroup(leaf)}`,
      );
      return { mode, child, info, client, leaf };
    }),
  );
  const small = template('small');
  try {
    for (const g of gateways) {
      await sequential(g.client, small, { warm: 500, max: 0, timeMs: 5_000 });
      if (g.client.errors > 0) throw new Error(`${g.mode}: ${g.client.lastError}`);
    }
    const rows: Record<string, number[]>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const samples = new Map<string, number[]>(gateways.map((g) => [g.mode, []]));
      const shared = new Map<string, number[]>(gateways.map((g) => [g.mode, [0, 0]]));
      const cpu = new Map<string, number>(gateways.map((g) => [g.mode, 0]));
      const calls = new Map<string, number>(gateways.map((g) => [g.mode, 0]));
      const load0 = loadAverage();
      for (let s = 0; s < SLICES; s++) {
        const order = (round + s) % 2 === 0 ? gateways : [...gateways].reverse();
        for (const g of order) {
          const tally = shared.get(g.mode)!;
          const timer = setInterval(() => {
            const a = lastCpu(g.info.pid);
            const b = lastCpu(g.leaf);
            if (a === undefined || b === undefined) return;
            tally[0]! += a === b ? 1 : 0;
            tally[1]! += 1;
          }, SAMPLE_MS);
          const c0 = treeCpuMicros(g.info.pid);
          const got = await sequential(g.client, small, { warm: 20, max: SLICE, timeMs: 10_000 });
          cpu.set(g.mode, cpu.get(g.mode)! + treeCpuMicros(g.info.pid) - c0);
          clearInterval(timer);
          calls.set(g.mode, calls.get(g.mode)! + got.length + 20);
          samples.get(g.mode)!.push(...got);
        }
      }
      const base = median(samples.get(gateways[0]!.mode)!);
      const row: Record<string, number[]> = {};
      const parts = gateways.map((g) => {
        const p50 = median(samples.get(g.mode)!);
        const [same, n] = shared.get(g.mode)!;
        const cpuPer = cpu.get(g.mode)! / calls.get(g.mode)!;
        row[g.mode] = [p50, p50 / base, cpuPer, same! / Math.max(1, n!)];
        return `sandbox ${g.mode}: p50 ${p50.toFixed(1)} µs (${(p50 / base).toFixed(2)}×), gateway+hook CPU ${cpuPer.toFixed(1)} µs/call, gateway and hook on one CPU in ${((100 * same!) / Math.max(1, n!)).toFixed(0)}% of samples`;
      });
      rows.push(row);
      console.log(`round ${round + 1} (load ${load0} → ${loadAverage()}):\n  ${parts.join('\n  ')}`);
    }
    console.log('\nmedian over rounds:');
    for (const g of gateways) {
      const col = (i: number) => median(rows.map((r) => r[g.mode]![i]!));
      const ratios = rows.map((r) => r[g.mode]![1]!);
      console.log(
        `  sandbox ${g.mode.padEnd(4)} p50 ${col(0).toFixed(1)}  ratio ${col(1).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})  CPU ${col(2).toFixed(1)} µs/call  one CPU ${(100 * col(3)).toFixed(0)}%`,
      );
    }
  } finally {
    for (const g of gateways) {
      await g.client.close();
      await g.child.stop();
    }
  }
}

/**
 * The gateway child with a controlling terminal, as when started from a shell: util-linux
 * script(1) runs it on a pseudo-terminal, and the IPC channel (fd 3, NODE_CHANNEL_FD) is
 * inherited through it.
 */
function withTerminal(name: string, mode: string): ServerChild {
  const command = [process.execPath, '--import', 'tsx', 'bench/children/sandbox-gateway.ts', mode].join(' ');
  const proc = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: process.env,
    stdio: ['pipe', 'ignore', 'inherit', 'ipc'],
  });
  return new ServerChild(name, proc);
}

/** CPU a process last ran on (/proc/<pid>/stat field 39), or undefined once it is gone. */
function lastCpu(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[36]);
  } catch {
    return undefined;
  }
}

/** The deepest process below `pid` (the hook itself under its wrappers), by parent pid in /proc. */
function leafOf(pid: number): number {
  for (;;) {
    const child = readdirSync('/proc').find((e) => {
      if (!/^\d+$/.test(e)) return false;
      try {
        const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    });
    if (child === undefined) return pid;
    pid = Number(child);
  }
}

/** Parent pid of every process, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      out.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * CPU time of `root` and every process below it, every thread, in µs, from schedstat (nanoseconds
 * on a CPU): clock ticks (10 ms) are too coarse for a slice of a few hundred calls.
 */
function treeCpuMicros(root: number): number {
  const ppid = parents();
  let total = 0;
  for (const [pid] of ppid) {
    let p: number | undefined = pid;
    while (p !== undefined && p > 1 && p !== root) p = ppid.get(p);
    if (p !== root) continue;
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`))
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** The scheduling group (sched_autogroup: one per session) a process is in. */
function autogroup(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/autogroup`, 'utf8').split(' ')[0]!;
  } catch {
    return '?';
  }
}
