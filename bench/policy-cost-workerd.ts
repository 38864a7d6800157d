/**
 * The policy cost per decision in workerd: gateway rules (0, 1, 20) and conditional grants (0, 1,
 * 20 conditions), measured from outside the isolate. Inside workerd the clocks do not advance while
 * JavaScript runs (a Spectre mitigation), so the Worker cannot time itself: this process reads the
 * workerd process's CPU time (/proc/<pid>/task/<tid>/schedstat, nanoseconds, all threads) and the
 * wall time around each block of requests.
 *
 *   npx tsx bench/policy-cost-workerd.ts [--rounds 5] [--calls 4000] [--steps 20000] [--conns 4]
 *
 * The Worker is built from src/worker/worker.ts as wrangler would bundle it (esbuild, the two
 * swagger-ui files as text) and run in the workerd that miniflare ships, with the compatibility
 * date of wrangler.toml. Two measurements, rounds interleaved, the order of the cases rotating:
 *
 * - **step**: one request per case runs the very closures `bench/cel.ts --rules / --grants` time
 *   in Node (`ruleCall`, `grantCall`: decideByRules and applyPolicy, compiled once) `--steps`
 *   times in a loop; workerd's CPU for that request over the steps is the CPU per decision. The
 *   same closures are timed in this process (Node) in the same rounds.
 * - **app**: whole Claude Code calls (`--calls` per case per round, in 6 slices taken in turn) (`POST …/claude-code`, a Bash PreToolUse to a `rules` hook, a
 *   PermissionRequest to a module hook that approves everything) through the gateway app over
 *   HTTP, `--conns` in flight; workerd CPU and wall time per call, and both against the case
 *   without rules or conditions in the same round.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type Agent, request as httpRequest, Agent as HttpAgent } from 'node:http';
import { build, type Plugin } from 'esbuild';
import { Miniflare } from 'miniflare';
import { compileConfig } from '../src/config/compile.js';
import { signDevToken } from '../src/node/token.js';
import { REPO_ROOT } from './lib/config.js';
import { FLOOR_RULES, GIT_STATUS, ruleCall, ruleCases } from './lib/rule-cost.js';
import { grantCall, grantCases } from './lib/grant-cost.js';
import { cpuMicrosPerCall, median } from './lib/stats.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const ROUNDS = Number(flag('rounds', '5'));
const CALLS = Number(flag('calls', '4000'));
const STEPS = Number(flag('steps', '20000'));
const CONNS = Number(flag('conns', '4'));
const SLICES = 6;

// Offline and quiet, as vitest.workers.config.ts runs miniflare.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

const APPROVE_HOOK = 'bench/children/approve-hook.ts';
const KEY = 'bench-policy-workerd-key-0123456789abcdefghij';

/**
 * The Worker: the production createWorker (the production registry plus the approving hook), and
 * one bench route that runs a policy step N times. The step cases are built on first use (the
 * config compiler is not run at a Worker's global scope).
 */
const ENTRY = `
import { createWorker } from './src/worker/worker.ts';
import { modules } from './src/worker/modules.ts';
import { FLOOR_RULES, GIT_STATUS, ruleCall, ruleCases } from './bench/lib/rule-cost.ts';
import { grantCall, grantCases } from './bench/lib/grant-cost.ts';
const worker = createWorker({
  modules: { ...modules, '${APPROVE_HOOK}': () => import('./${APPROVE_HOOK}') },
  sink: () => {},
});
let steps;
const stepCases = () => (steps ??= [
  ['rules: the floor (one rule naming another tool)', ruleCall(FLOOR_RULES, GIT_STATUS)],
  ...ruleCases().map(([name, rules, args]) => ['rules: ' + name, ruleCall(rules, args)]),
  ...grantCases().map(([name, tools, command]) => ['grants: ' + name, grantCall(tools, command)]),
]);
export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === '/__bench/step') {
      const [name, once] = stepCases()[Number(url.searchParams.get('case'))];
      const n = Number(url.searchParams.get('n'));
      let last;
      for (let i = 0; i < n; i++) last = once();
      return Response.json({ name, last: JSON.stringify(last ?? null).slice(0, 200) });
    }
    return worker.fetch(request, env, ctx);
  },
};
`;

/** wrangler.toml's `[[rules]]` type "Text": the docs viewer's two files become strings. */
const swaggerAsText: Plugin = {
  name: 'swagger-ui-as-text',
  setup(b) {
    b.onLoad({ filter: /swagger-ui-dist[\\/]swagger-ui(-bundle\.js|\.css)$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8'),
      loader: 'text',
    }));
  },
};

async function bundleWorker(): Promise<string> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: REPO_ROOT, loader: 'ts', sourcefile: 'policy-bench-entry.ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser', 'import'],
    plugins: [swaggerAsText],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

function compatibilityDate(): string {
  const m = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(readFileSync(`${REPO_ROOT}/wrangler.toml`, 'utf8'));
  if (!m) throw new Error('wrangler.toml has no compatibility_date');
  return m[1]!;
}

const twentyRules = ruleCases().find(([name]) => name.startsWith('20 rules, all evaluated'))!;
const oneRule = ruleCases().find(([name]) => name.startsWith('1 rule'))!;
const [grants0, grants1, grants20] = grantCases();

/** The app cases: a hook per case, the call made to it, what its answer must contain. */
const APP_CASES: {
  hook: string;
  label: string;
  doc: Record<string, unknown>;
  event: string;
  command: string;
  expect: string;
}[] = [
  ['rules-0', 'rules: the floor (one rule naming another tool)', FLOOR_RULES],
  ['rules-1', `rules: ${oneRule[0]}`, oneRule[1]],
  ['rules-20', `rules: ${twentyRules[0]}`, twentyRules[1]],
].map(([hook, label, rules]) => ({
  hook: hook as string,
  label: label as string,
  doc: { backend: { type: 'rules' }, modes: ['tool'], rules },
  event: 'PreToolUse',
  command: GIT_STATUS.command,
  expect: '{',
}));
for (const [hook, c] of [
  ['grants-0', grants0!],
  ['grants-1', grants1!],
  ['grants-20', grants20!],
] as const) {
  APP_CASES.push({
    hook,
    label: `grants: ${c[0]}`,
    doc: {
      backend: { type: 'module', module: APPROVE_HOOK },
      modes: ['approve'],
      grants: { approve_tools: c[1] },
    },
    event: 'PermissionRequest',
    command: c[2],
    expect: '"behavior":"allow"',
  });
}

const CONFIG = {
  server: { log_level: 'error' },
  tenants: {
    bench: {
      auth: { audience: 'hookgate', keys: [{ kid: 'bench-1', alg: 'HS256', secret: 'env:BENCH_KEY' }] },
      hooks: Object.fromEntries(APP_CASES.map((c) => [c.hook, c.doc])),
    },
  },
};

function claudeCodeBody(event: string, command: string): string {
  return JSON.stringify({
    session_id: 'sess-bench',
    transcript_path: '/home/bench/.claude/t.jsonl',
    cwd: '/home/bench/project',
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: { command },
    ...(event === 'PreToolUse' ? { tool_use_id: 'toolu_bench' } : {}),
  });
}

/** CPU time of every thread of `pid`, in nanoseconds (schedstat: time on a CPU). */
function threadsCpuNanos(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return total;
}

/** The workerd process miniflare started below this one. */
function findWorkerd(): number {
  const parentOf = new Map<number, number>();
  const workerd: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      parentOf.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (comm === 'workerd') workerd.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  const mine = workerd.filter((pid) => {
    for (let p: number | undefined = pid; p && p > 1; p = parentOf.get(p)) if (p === process.pid) return true;
    return false;
  });
  if (mine.length !== 1) throw new Error(`expected one workerd below this process, found ${mine.length}`);
  return mine[0]!;
}

function post(agent: Agent, url: URL, path: string, body: string, token: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')]));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function get(agent: Agent, url: URL, path: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ agent, host: url.hostname, port: url.port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')]));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `n` calls, `conns` in flight; every answer checked. Workerd CPU µs and wall µs per call. */
async function appBlock(
  agent: Agent,
  url: URL,
  pid: number,
  c: (typeof APP_CASES)[number],
  token: string,
  n: number,
): Promise<{ cpu: number; wall: number }> {
  const path = `/v1/tenants/bench/hooks/${c.hook}/claude-code`;
  const body = claudeCodeBody(c.event, c.command);
  let issued = 0;
  const worker = async () => {
    while (issued < n) {
      issued++;
      const [status, text] = await post(agent, url, path, body, token);
      if (status !== 200 || !text.includes(c.expect))
        throw new Error(`${c.hook}: answered ${status} ${text.slice(0, 200)}`);
    }
  };
  const cpu0 = threadsCpuNanos(pid);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONNS }, worker));
  const wall = (performance.now() - t0) * 1000;
  return { cpu: (threadsCpuNanos(pid) - cpu0) / 1000 / n, wall: wall / n };
}

/** One request running step case `k` `n` times: workerd CPU µs of the whole request. */
async function stepRequest(agent: Agent, url: URL, pid: number, k: number, n: number): Promise<number> {
  const cpu0 = threadsCpuNanos(pid);
  const [status, text] = await get(agent, url, `/__bench/step?case=${k}&n=${n}`);
  const used = threadsCpuNanos(pid) - cpu0;
  if (status !== 200) throw new Error(`step ${k}: ${status} ${text.slice(0, 300)}`);
  return used / 1000;
}

/**
 * Workerd CPU µs per step of case `k`: a request of `n` steps less the median of three requests of
 * none (what a request costs by itself), over `n`.
 */
async function stepBlock(agent: Agent, url: URL, pid: number, k: number, n: number): Promise<number> {
  const empty: number[] = [];
  for (let i = 0; i < 3; i++) empty.push(await stepRequest(agent, url, pid, k, 0));
  return ((await stepRequest(agent, url, pid, k, n)) - median(empty)) / n;
}

const STEP_CASES: [string, () => unknown][] = [
  ['rules: the floor (one rule naming another tool)', ruleCall(FLOOR_RULES, GIT_STATUS)],
  ...ruleCases().map(
    ([name, rules, args]) => [`rules: ${name}`, ruleCall(rules, args)] as [string, () => unknown],
  ),
  ...grantCases().map(
    ([name, tools, command]) => [`grants: ${name}`, grantCall(tools, command)] as [string, () => unknown],
  ),
];

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

const code = await bundleWorker();
const mf = new Miniflare({
  host: '127.0.0.1',
  port: 0,
  cf: false,
  workers: [
    {
      config: {
        name: 'hookgate-policy-bench',
        compatibilityDate: compatibilityDate(),
        manifest: { mainModule: 'index.js', modules: { 'index.js': { type: 'esm', contents: code } } },
        env: {
          HOOKGATE_CONFIG: { type: 'text', value: JSON.stringify(CONFIG) },
          BENCH_KEY: { type: 'text', value: KEY },
        },
      },
    },
  ],
});
try {
  const url = new URL((await mf.ready).href);
  const pid = findWorkerd();
  const tenant = compileConfig(CONFIG, (ref) => (ref === 'env:BENCH_KEY' ? KEY : ref)).tenants.get('bench')!;
  const token = await signDevToken(tenant, { hooks: APP_CASES.map((c) => c.hook), ttlSeconds: 3600 });
  const agent = new HttpAgent({ keepAlive: true, maxSockets: CONNS });
  console.log(
    `workerd pid ${pid}; ${ROUNDS} rounds; app: ${CALLS} calls per case per round, ${CONNS} in flight; steps: ${STEPS} per request`,
  );

  // Warm-up: the gateway is built on the first request; every case is called until JIT-warm.
  for (const c of APP_CASES) {
    const [, answer] = await post(
      agent,
      url,
      `/v1/tenants/bench/hooks/${c.hook}/claude-code`,
      claudeCodeBody(c.event, c.command),
      token,
    );
    console.log(`  ${c.hook} (${c.event} \`${c.command}\`) answers ${answer.slice(0, 120)}`);
    await appBlock(agent, url, pid, c, token, 500);
  }
  for (let k = 0; k < STEP_CASES.length; k++) await stepBlock(agent, url, pid, k, 2000);

  const app: Record<string, { cpu: number; wall: number; cpuRatio: number; wallRatio: number }[]> = {};
  const step: Record<string, { workerd: number; node: number }[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    const load = loadAverage();
    const shift = round % APP_CASES.length;
    const order = [...APP_CASES.slice(shift), ...APP_CASES.slice(0, shift)];
    // Slices of every case in turn (A B C … C B A …): the calls a ratio compares are made close in time.
    const sum = new Map<string, { cpu: number; wall: number }>(
      APP_CASES.map((c) => [c.hook, { cpu: 0, wall: 0 }]),
    );
    for (let s = 0; s < SLICES; s++) {
      for (const c of (round + s) % 2 ? [...order].reverse() : order) {
        const m = await appBlock(agent, url, pid, c, token, CALLS / SLICES);
        const t = sum.get(c.hook)!;
        t.cpu += m.cpu / SLICES;
        t.wall += m.wall / SLICES;
      }
    }
    const got = sum;
    for (const c of APP_CASES) {
      const base = got.get(c.hook.startsWith('rules') ? 'rules-0' : 'grants-0')!;
      const m = got.get(c.hook)!;
      app[c.hook] ??= [];
      app[c.hook]!.push({ ...m, cpuRatio: m.cpu / base.cpu, wallRatio: m.wall / base.wall });
    }
    const ks = STEP_CASES.map((_, k) => k);
    const kOrder = round % 2 ? ks.reverse() : ks;
    for (const k of kOrder) {
      const workerd = await stepBlock(agent, url, pid, k, STEPS);
      const node = cpuMicrosPerCall(STEP_CASES[k]![1], STEPS, 1);
      const name = STEP_CASES[k]![0];
      step[name] ??= [];
      step[name]!.push({ workerd, node });
    }
    console.log(
      `round ${round + 1} (load ${load}): ${APP_CASES.map((c) => `${c.hook} ${got.get(c.hook)!.cpu.toFixed(1)} µs`).join(', ')}`,
    );
  }
  console.log(`load average at the end: ${loadAverage()}`);

  const range = (xs: number[], d = 2) => `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`;
  console.log('\n== app: Claude Code calls through the gateway in workerd (medians over rounds)');
  console.log(
    '| case | workerd CPU µs/call | over the 0 case | × the 0 case (per round) | wall µs/call | × (per round) |',
  );
  console.log('| --- | ---: | ---: | --- | ---: | --- |');
  for (const c of APP_CASES) {
    const rows = app[c.hook]!;
    const base = app[c.hook.startsWith('rules') ? 'rules-0' : 'grants-0']!;
    const over = median(rows.map((r, i) => r.cpu - base[i]!.cpu));
    console.log(
      `| ${c.label} | ${median(rows.map((r) => r.cpu)).toFixed(1)} | ${over >= 0 ? '+' : ''}${over.toFixed(1)} | ${median(rows.map((r) => r.cpuRatio)).toFixed(2)}× (${range(rows.map((r) => r.cpuRatio))}) | ${median(rows.map((r) => r.wall)).toFixed(1)} | ${median(rows.map((r) => r.wallRatio)).toFixed(2)}× (${range(rows.map((r) => r.wallRatio))}) |`,
    );
  }
  console.log('\n== step: the policy step alone, CPU µs per decision (medians over rounds)');
  console.log('| case | workerd | Node (this process) | workerd / Node |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name] of STEP_CASES) {
    const rows = step[name]!;
    const w = median(rows.map((r) => r.workerd));
    const n = median(rows.map((r) => r.node));
    console.log(`| ${name} | ${w.toFixed(2)} | ${n.toFixed(2)} | ${(w / n).toFixed(2)}× |`);
  }
  agent.destroy();
} finally {
  await mf.dispose();
}
