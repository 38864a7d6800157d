/**
 * Noisy neighbour: does one tenant's `matches()` on a huge argument move another tenant's latency?
 *
 * One real gateway process (`hookgate serve --config`) hosts two tenants. Tenant B has the weather
 * SDK hook and sends small calls at a fixed rate (every 5 ms), each timed from when it was due. Tenant A, from its
 * own process, sends calls one after another whose argument `x` fills the request up to the
 * gateway's `server.max_body_bytes`, to a rules hook; in interleaved phases (order rotating every
 * round) A is idle, calls a hook whose rule is trivial (`args.x == "y"`: the call is read, parsed and
 * ruled on, the pattern costs nothing), one whose trivial rule holds (`args.x != "y"`: denied, as
 * the regex rule's calls are), or one whose rule runs `args.x.matches("(a+)+$")`
 * on `a…a!` (no match: the matcher reads until its step budget runs out, and the rule denies,
 * failing closed). Reported per phase: B's p50 and p99 (median over rounds), A's calls per second
 * and answers, and the gateway's CPU per A call. With `--before DIR` a second gateway, started
 * from another checkout (`DIR/bin/hookgate.js`, e.g. the commit before the lazy DFA), runs the same
 * phases in the same rounds.
 *
 *   npx tsx bench/noisy-neighbour.ts [--rounds 5] [--phase-ms 5000] [--body-mib 8] [--b-interval-ms 5] [--before DIR]
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileConfig } from '../src/config/compile.js';
import { signDevToken } from '../src/node/token.js';
import { HttpClient, sequential } from './lib/clients.js';
import { REPO_ROOT } from './lib/config.js';
import { procCpuMicros } from './lib/ipc.js';
import { template } from './lib/messages.js';
import { median, percentile } from './lib/stats.js';

const SELF = fileURLToPath(import.meta.url);
const PATTERN = '(a+)+$';

// ---------------------------------------------------------------------------------------------
// Tenant A's process: sends its large calls one after another until told to stop.

interface SenderStart {
  url: string;
  path: string;
  token: string;
  bodyBytes: number;
}

function senderMain(): void {
  let running = false;
  let stopped: (() => void) | undefined;
  const answers: Record<string, number> = {};
  process.on('message', async (m: { start?: SenderStart; stop?: boolean }) => {
    if (m.start) {
      running = true;
      for (const k of Object.keys(answers)) delete answers[k];
      void loop(m.start).then(() => stopped?.());
    } else if (m.stop) {
      await new Promise<void>((resolve) => {
        stopped = resolve;
        running = false;
      });
      process.send?.({ answers: { ...answers } });
    }
  });

  async function loop(s: SenderStart): Promise<void> {
    const u = new URL(s.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const head =
      '{"jsonrpc":"2.0","id":1,"method":"hook.before_tool","params":{"meta":{"SessionKey":"s","AgentID":"a"},"tool":"exec","arguments":{"x":"';
    const tail = '!"}}}';
    const body = Buffer.from(head + 'a'.repeat(s.bodyBytes - head.length - tail.length) + tail);
    while (running) {
      const answer = await new Promise<string>((resolve) => {
        const req = request(
          {
            agent,
            host: u.hostname,
            port: Number(u.port),
            path: s.path,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'content-length': body.length,
              authorization: `Bearer ${s.token}`,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString();
              if (res.statusCode !== 200) return resolve(`HTTP ${res.statusCode}`);
              try {
                const m = JSON.parse(text) as { result?: { action?: string }; error?: unknown };
                resolve(m.result?.action ?? 'error');
              } catch {
                resolve('unparsable');
              }
            });
          },
        );
        req.on('error', (e) => resolve(`error: ${e.message}`));
        req.end(body);
      });
      answers[answer] = (answers[answer] ?? 0) + 1;
    }
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The run.

const ENV = {
  NOISY_A_SECRET: randomBytes(32).toString('base64url'),
  NOISY_B_SECRET: randomBytes(32).toString('base64url'),
};

function configDocument(port: number, bodyBytes: number): Record<string, unknown> {
  const key = (env: string) => ({ auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: `env:${env}` }] } });
  const rulesHook = (when: string) => ({
    backend: { type: 'rules' },
    modes: ['tool'],
    rules: [{ name: 'r', tool: '*', when, action: 'deny', reason: 'no' }],
  });
  return {
    server: { host: '127.0.0.1', port, log_level: 'error', max_body_bytes: bodyBytes },
    tenants: {
      a: {
        ...key('NOISY_A_SECRET'),
        hooks: {
          regex: rulesHook(`args.x.matches("${PATTERN}")`),
          trivial: rulesHook('args.x == "y"'),
          // Trivial too, but it holds: the call is denied as the regex rule's is (fails closed).
          deny: rulesHook('args.x != "y"'),
        },
      },
      b: {
        ...key('NOISY_B_SECRET'),
        hooks: {
          weather: {
            backend: { type: 'module', module: join(REPO_ROOT, 'examples/weather-sdk.ts') },
            modes: ['llm', 'tool'],
            tools: ['get_weather'],
          },
        },
      },
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url: string, gateway: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (gateway.exitCode !== null) throw new Error(`gateway exited (${gateway.exitCode})`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('gateway did not become healthy');
}

interface Gateway {
  label: string;
  url: string;
  proc: ChildProcess;
  b: HttpClient;
  aToken: string;
}

async function startOne(label: string, dir: string, work: string, bodyBytes: number): Promise<Gateway> {
  const port = await freePort();
  const doc = configDocument(port, bodyBytes);
  const file = join(work, `${label}.json`);
  writeFileSync(file, JSON.stringify(doc));
  const env: NodeJS.ProcessEnv = { ...process.env, ...ENV };
  const config = compileConfig(doc, (ref) => (ref.startsWith('env:') ? env[ref.slice(4)]! : ref));
  const aToken = await signDevToken(config.tenants.get('a')!, { hooks: ['*'], ttlSeconds: 3600 });
  const bToken = await signDevToken(config.tenants.get('b')!, { hooks: ['*'], ttlSeconds: 3600 });
  const proc = spawn(process.execPath, [join(dir, 'bin/hookgate.js'), 'serve', '--config', file], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, proc);
  const b = new HttpClient(`${label} b`, url, '/v1/tenants/b/hooks/weather', bToken, 8);
  return { label, url, proc, b, aToken };
}

/**
 * B's calls at a fixed rate, each timed from when it was due, not from when it left: a call that
 * waits behind A's work is counted as waiting (one after another, B's next call would start in
 * the gap after A's work and miss the wait: coordinated omission). Microseconds.
 */
async function paced(
  client: HttpClient,
  t: ReturnType<typeof template>,
  intervalMs: number,
  timeMs: number,
): Promise<number[]> {
  const samples: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i * intervalMs < timeMs; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // A timer may fire a little early: then the call is timed from when it left.
    const from = Math.max(due, performance.now());
    pending.push(client.call(t).then(() => void samples.push((performance.now() - from) * 1000)));
  }
  await Promise.all(pending);
  return samples;
}

type Phase = 'idle' | 'trivial' | 'deny' | 'regex';
const PHASES: Phase[] = ['idle', 'trivial', 'deny', 'regex'];

interface Row {
  gateway: string;
  round: number;
  phase: Phase;
  p50: number;
  p99: number;
  bCalls: number;
  aCalls: number;
  aAnswers: Record<string, number>;
  gatewayCpuMs: number;
  seconds: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '5' },
      'phase-ms': { type: 'string', default: '5000' },
      'body-mib': { type: 'string', default: '8' },
      before: { type: 'string' },
      'b-interval-ms': { type: 'string', default: '5' },
    },
  });
  const intervalMs = Number(values['b-interval-ms']);
  const rounds = Number(values.rounds);
  const phaseMs = Number(values['phase-ms']);
  const bodyBytes = Math.round(Number(values['body-mib']) * 1024 * 1024);
  const work = mkdtempSync(join(tmpdir(), 'hookgate-noisy-'));
  const gateways = [await startOne('current', REPO_ROOT, work, bodyBytes)];
  if (values.before) gateways.push(await startOne('before', values.before, work, bodyBytes));
  const sender = fork(SELF, ['--sender'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const small = template('small');
  for (const g of gateways) await sequential(g.b, small, { warm: 300, max: 0, timeMs: 0 });

  const rows: Row[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (let k = 0; k < PHASES.length * gateways.length; k++) {
      const slot = (k + r) % (PHASES.length * gateways.length);
      const g = gateways[slot % gateways.length]!;
      const phase = PHASES[Math.floor(slot / gateways.length)]!;
      const cpu0 = procCpuMicros(g.proc.pid!);
      const t0 = performance.now();
      if (phase !== 'idle') {
        const start: SenderStart = {
          url: g.url,
          path: `/v1/tenants/a/hooks/${phase}`,
          token: g.aToken,
          bodyBytes,
        };
        sender.send({ start });
        await new Promise((res) => setTimeout(res, 300)); // A's first call under way
      }
      const us = await paced(g.b, small, intervalMs, phaseMs);
      let aAnswers: Record<string, number> = {};
      if (phase !== 'idle') {
        const done = new Promise<Record<string, number>>((res) =>
          sender.once('message', (m: { answers: Record<string, number> }) => res(m.answers)),
        );
        sender.send({ stop: true });
        aAnswers = await done;
      }
      const seconds = (performance.now() - t0) / 1000;
      const sorted = [...us].sort((x, y) => x - y);
      const aCalls = Object.values(aAnswers).reduce((s, n) => s + n, 0);
      const row: Row = {
        gateway: g.label,
        round: r,
        phase,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        bCalls: us.length,
        aCalls,
        aAnswers,
        gatewayCpuMs: (procCpuMicros(g.proc.pid!) - cpu0) / 1000,
        seconds,
      };
      rows.push(row);
      console.log(
        `round ${r} ${g.label.padEnd(7)} ${phase.padEnd(7)} B p50 ${row.p50.toFixed(0)} µs p99 ${row.p99.toFixed(0)} µs (${row.bCalls} calls); A ${aCalls} calls ${JSON.stringify(aAnswers)}; gateway CPU ${row.gatewayCpuMs.toFixed(0)} ms`,
      );
    }
  }

  console.log(
    `\nB's latency (from when each call was due, one every ${intervalMs} ms), median over ${rounds} rounds of ${phaseMs} ms; A's calls carry ${(bodyBytes / 2 ** 20).toFixed(1)} MiB (server.max_body_bytes)`,
  );
  console.log(
    '| gateway | tenant A | B p50 µs | B p99 µs | B p50 / idle | A calls/s | gateway CPU ms per A call | A answers |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const g of gateways) {
    const of = (p: Phase) => rows.filter((x) => x.gateway === g.label && x.phase === p);
    const idleP50 = median(of('idle').map((x) => x.p50));
    // What one of B's calls costs the gateway, from the idle phases, to take B's share out below.
    const perB = median(of('idle').map((x) => x.gatewayCpuMs / x.bCalls));
    for (const p of PHASES) {
      const xs = of(p);
      const p50 = median(xs.map((x) => x.p50));
      const aRate = median(xs.map((x) => x.aCalls / x.seconds));
      // The gateway's CPU over the phase less what B's calls cost it, per A call.
      const perA = median(
        xs.map((x) => (x.aCalls ? (x.gatewayCpuMs - perB * x.bCalls) / x.aCalls : Number.NaN)),
      );
      const answers: Record<string, number> = {};
      for (const x of xs) for (const [k, n] of Object.entries(x.aAnswers)) answers[k] = (answers[k] ?? 0) + n;
      console.log(
        `| ${g.label} | ${p} | ${p50.toFixed(0)} | ${median(xs.map((x) => x.p99)).toFixed(0)} | ${(p50 / idleP50).toFixed(2)}× | ${p === 'idle' ? '—' : aRate.toFixed(1)} | ${p === 'idle' ? '—' : perA.toFixed(1)} | ${p === 'idle' ? '—' : JSON.stringify(answers)} |`,
      );
    }
  }
  // B's p50 jumps between rounds with how A's calls happen to fall (and with the machine's other
  // load), so the comparison that matters is made within each round: regex against trivial.
  for (const g of gateways) {
    const within = (p: Phase) =>
      rows.filter((x) => x.gateway === g.label && x.phase === p).sort((x, y) => x.round - y.round);
    for (const base of ['trivial', 'deny'] as const) {
      const ratios = within('regex').map((x, i) => x.p50 / within(base)[i]!.p50);
      const p99s = within('regex').map((x, i) => x.p99 / within(base)[i]!.p99);
      console.log(
        `${g.label}: B p50 regex / ${base} within a round: median ${median(ratios).toFixed(2)}× (${ratios.map((x) => x.toFixed(2)).join(', ')}); p99 ${median(p99s).toFixed(2)}×`,
      );
    }
  }
  sender.kill();
  for (const g of gateways) {
    await g.b.close();
    g.proc.kill('SIGTERM');
  }
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}

if (process.argv.includes('--sender')) senderMain();
else await main();
