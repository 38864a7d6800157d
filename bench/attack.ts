/**
 * Attack mix: does one tenant's abuse slow another tenant down, or stop the gateway?
 *
 * One real gateway process (`hookgate serve --config`) hosts three tenants. `victim` has the weather
 * SDK hook; `attacker` has hostile stdio hooks (bench/children/hostile-hook.mjs: one that stops
 * reading stdin, one that floods stderr, one that crashes on every call, and, with per-hook limits,
 * a fork bomb, a memory bomb and one hammering loopback ports with connections); `greedy` has the weather
 * hook behind a low calls-per-second limit and calls it far more often. In interleaved phases the victim makes sequential calls (HTTP and
 * WebSocket) with the attack off, then with the whole mix on (bench/children/attacker.ts, its own
 * process): slowloris connections, calls piling up on the stuck hook, the stderr flood, the crash
 * loop, and a client far over its limit. Reported: the victim's p50 under attack against idle in
 * the same run, whether the gateway stayed up, its RSS, and what the attacks got back.
 *
 *   npx tsx bench/attack.ts [--rounds 3] [--phase-ms 6000] [--json FILE]
 *   npx tsx bench/attack.ts --legacy --gateway-dir ../old-checkout   (the same attack on an older gateway)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileConfig } from '../src/config/compile.js';
import { signDevToken } from '../src/node/token.js';
import { HttpClient, sequential, WsClient } from './lib/clients.js';
import { REPO_ROOT } from './lib/config.js';
import { forkTs, procRssBytes } from './lib/ipc.js';
import { template } from './lib/messages.js';
import { median, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    'phase-ms': { type: 'string', default: '6000' },
    json: { type: 'string' },
    // For a gateway that predates limits and the admin token (A/B against an older checkout).
    legacy: { type: 'boolean', default: false },
    // Serve with another checkout's gateway (its bin/hookgate.js), e.g. an older commit with --legacy.
    'gateway-dir': { type: 'string' },
    // Leave some of the hooks that need per-hook limits out of the mix (comma-separated), to see
    // what each costs: forkbomb, membomb, hammer. --legacy leaves all three out.
    without: { type: 'string', default: '' },
  },
});
const rounds = Number(values.rounds);
const phaseMs = Number(values['phase-ms']);

const secrets = {
  ATTACK_VICTIM_SECRET: randomBytes(32).toString('base64url'),
  ATTACK_ATTACKER_SECRET: randomBytes(32).toString('base64url'),
  ATTACK_GREEDY_SECRET: randomBytes(32).toString('base64url'),
  ATTACK_ADMIN_TOKEN: randomBytes(32).toString('base64url'),
};
const key = (env: string) => ({ auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: `env:${env}` }] } });
const hostile = (how?: string, extra: { tools?: string[]; sandbox?: object; timeoutMs?: number } = {}) => ({
  backend: {
    type: 'stdio',
    command: [process.execPath, join(REPO_ROOT, 'bench/children/hostile-hook.mjs'), ...(how ? [how] : [])],
    ...(extra.sandbox ? { sandbox: extra.sandbox } : {}),
  },
  modes: ['tool'],
  tools: extra.tools ?? [],
  timeout_ms: extra.timeoutMs ?? 500,
});
// The bombs need per-hook limits: a gateway without them (--legacy) does not get them.
const bombs = (port: number) => ({
  // Forking up to the limit takes a while on a loaded machine: its answer (how many) must get back.
  forkbomb: hostile(undefined, { tools: [`forkbomb:${phaseMs}`], timeoutMs: 10_000 }),
  membomb: hostile(undefined, { tools: ['membomb'], sandbox: { limits: { memory_mb: 128 } } }),
  hammer: hostile(undefined, { tools: [`hammer:${port}:${phaseMs}`] }),
});
const weather = {
  backend: { type: 'module', module: join(REPO_ROOT, 'examples/weather-sdk.ts') },
  modes: ['llm', 'tool'],
  tools: ['get_weather'],
};

function configDocument(port: number): Record<string, unknown> {
  const legacy = values.legacy;
  return {
    server: {
      host: '127.0.0.1',
      port,
      log_level: 'warn',
      ...(legacy ? {} : { admin_token: 'env:ATTACK_ADMIN_TOKEN' }),
    },
    tenants: {
      victim: {
        ...key('ATTACK_VICTIM_SECRET'),
        // Slow shows as latency, not as a lost call: the deadline is far above any p99 seen.
        hooks: { weather, stdio: hostile('forks', { tools: ['get_weather'], timeoutMs: 10_000 }) },
      },
      attacker: {
        ...key('ATTACK_ATTACKER_SECRET'),
        hooks: {
          stuck: hostile('stuck'),
          flood: hostile(),
          crash: hostile(),
          ...(legacy ? {} : bombs(port)),
        },
      },
      greedy: {
        ...key('ATTACK_GREEDY_SECRET'),
        ...(legacy ? {} : { limits: { calls_per_second: 50, burst: 50 } }),
        hooks: { weather },
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

async function metric(url: string, name: string): Promise<number> {
  const headers: Record<string, string> = values.legacy
    ? {}
    : { authorization: `Bearer ${secrets.ATTACK_ADMIN_TOKEN}` };
  const res = await fetch(`${url}/metrics`, { headers }).catch(() => undefined);
  if (!res?.ok) return Number.NaN;
  let total = 0;
  for (const line of (await res.text()).split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.split(' ').pop());
  }
  return total;
}

const pct = (xs: number[], p: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    p,
  );
const p50 = (xs: number[]) => pct(xs, 50);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-attack-'));
  const port = await freePort();
  const doc = configDocument(port);
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(doc));
  const env: NodeJS.ProcessEnv = { ...process.env, ...secrets };
  const config = compileConfig(doc, (ref) => (ref.startsWith('env:') ? env[ref.slice(4)]! : ref));
  const victimToken = await signDevToken(config.tenants.get('victim')!, {
    hooks: ['weather', 'stdio'],
    ttlSeconds: 3600,
  });
  const attackerToken = await signDevToken(config.tenants.get('attacker')!, {
    hooks: ['*'],
    ttlSeconds: 3600,
  });
  const greedyToken = await signDevToken(config.tenants.get('greedy')!, { hooks: ['*'], ttlSeconds: 3600 });

  const gatewayDir = values['gateway-dir'] ?? REPO_ROOT;
  const gateway = spawn(process.execPath, [join(gatewayDir, 'bin/hookgate.js'), 'serve', '--config', file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logLines = 0;
  let logBytes = 0;
  const countLog = (b: Buffer) => {
    logBytes += b.length;
    for (const c of b) if (c === 10) logLines++;
  };
  gateway.stdout.on('data', countLog);
  gateway.stderr.on('data', countLog);
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, gateway);

  const attacker = forkTs('attacker', join(REPO_ROOT, 'bench/children/attacker.ts'), [], { quiet: true });
  await attacker.ready;
  const small = template('small');
  const path = '/v1/tenants/victim/hooks/weather';
  const http = new HttpClient('victim http', url, path, victimToken, 1);
  const ws = await WsClient.open('victim ws', `${url.replace('http', 'ws')}${path}/ws`, victimToken);
  // The victim's own stdio hook, which forks on every call: what a shared process cap would starve.
  const stdio = new HttpClient('victim stdio', url, '/v1/tenants/victim/hooks/stdio', victimToken, 1);
  const seq = { warm: 200, max: 1_000_000 };

  const rows: Array<Record<string, number | string>> = [];
  const tallies: Array<Record<string, number>> = [];
  for (let r = 1; r <= rounds; r++) {
    for (const phase of ['idle', 'attack'] as const) {
      const logBefore = logLines;
      if (phase === 'attack') {
        await attacker.request('start', {
          url,
          token: attackerToken,
          greedyToken,
          slowloris: 500,
          stuckInFlight: 4,
          overLimitConnections: 4,
          phaseMs,
          bombs: values.legacy
            ? []
            : (['forkbomb', 'membomb', 'hammer'] as const).filter(
                (b) => !values.without.split(',').includes(b),
              ),
        });
      }
      const httpUs = await sequential(http, small, { ...seq, timeMs: phaseMs / 3 });
      const wsUs = await sequential(ws, small, { ...seq, timeMs: phaseMs / 3 });
      const stdioUs = await sequential(stdio, small, { ...seq, warm: 20, timeMs: phaseMs / 3 });
      if (phase === 'attack') tallies.push(await attacker.request('stop', undefined, 20_000));
      rows.push({
        round: r,
        phase,
        http_p50_us: Math.round(p50(httpUs)),
        ws_p50_us: Math.round(p50(wsUs)),
        stdio_p50_us: Math.round(p50(stdioUs)),
        http_p99_us: Math.round(pct(httpUs, 99)),
        ws_p99_us: Math.round(pct(wsUs, 99)),
        http_calls: httpUs.length,
        ws_calls: wsUs.length,
        stdio_calls: stdioUs.length,
        gateway_log_lines: logLines - logBefore,
        gateway_rss_mib: +(procRssBytes(gateway.pid!) / 2 ** 20).toFixed(1),
      });
      console.log(JSON.stringify(rows[rows.length - 1]));
    }
  }
  const errors = {
    http: http.errors,
    ws: ws.errors,
    stdio: stdio.errors,
    last: http.lastError ?? ws.lastError ?? stdio.lastError,
  };
  const metrics = {
    rate_limited: await metric(url, 'hookgate_rate_limited_total'),
    stderr_dropped: await metric(url, 'hookgate_hook_stderr_dropped_lines_total'),
    backend_failures: await metric(url, 'hookgate_backend_failures_total'),
  };
  const alive =
    gateway.exitCode === null &&
    (await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    ));
  await http.close();
  await ws.close();
  await stdio.close();
  await attacker.stop();
  gateway.kill('SIGTERM');

  const ratio = (k: 'http_p50_us' | 'ws_p50_us' | 'stdio_p50_us') =>
    rows
      .filter((x) => x.phase === 'attack')
      .map(
        (a) => (a[k] as number) / (rows.find((i) => i.round === a.round && i.phase === 'idle')![k] as number),
      );
  const summary = {
    http_ratio_median: +median(ratio('http_p50_us')).toFixed(2),
    http_ratio_range: ratio('http_p50_us').map((x) => +x.toFixed(2)),
    ws_ratio_median: +median(ratio('ws_p50_us')).toFixed(2),
    ws_ratio_range: ratio('ws_p50_us').map((x) => +x.toFixed(2)),
    stdio_ratio_median: +median(ratio('stdio_p50_us')).toFixed(2),
    stdio_ratio_range: ratio('stdio_p50_us').map((x) => +x.toFixed(2)),
    target: 'victim p50 under attack within 2x of idle (HTTP, WebSocket), no victim call lost, gateway up',
    met:
      alive &&
      median(ratio('http_p50_us')) <= 2 &&
      median(ratio('ws_p50_us')) <= 2 &&
      !errors.http &&
      !errors.ws &&
      !errors.stdio,
    gateway_alive: alive,
    victim_errors: errors,
    gateway_log_bytes: logBytes,
    metrics,
    attack_outcomes: tallies,
  };
  console.log(
    `\nvictim p50 under attack / idle: HTTP ${summary.http_ratio_median}× (rounds ${summary.http_ratio_range.join(', ')}), WebSocket ${summary.ws_ratio_median}× (rounds ${summary.ws_ratio_range.join(', ')}), its forking stdio hook ${summary.stdio_ratio_median}× (rounds ${summary.stdio_ratio_range.join(', ')})`,
  );
  console.log(
    `gateway alive: ${alive}; victim errors: http ${errors.http}, ws ${errors.ws}, stdio ${errors.stdio}${errors.last ? ` (${errors.last})` : ''}`,
  );
  console.log(`metrics: ${JSON.stringify(metrics)}`);
  console.log(`attack outcomes (last round): ${JSON.stringify(tallies[tallies.length - 1])}`);
  console.log(
    `target (HTTP and WebSocket p50 ≤ 2× idle, no victim call lost, nothing exits): ${summary.met ? 'met' : 'MISSED'}`,
  );
  // The stdio hook's ratio is reported, not judged: per-hook limits bound processes and memory, not
  // CPU, and a hook that forks on every call feels every other process on the machine.
  console.log(
    `victim's forking stdio hook: p50 ${summary.stdio_ratio_median}× idle, ${errors.stdio} calls lost`,
  );
  const out = values.json ?? join(REPO_ROOT, 'bench/results', `attack-${Date.now()}.json`);
  writeFileSync(out, JSON.stringify({ rows, summary }, null, 2));
  console.log(`results: ${out}`);
  process.exit(0);
}

await main();
