/**
 * What decision records cost a call: two gateways in one process, the same config and module hook,
 * one with server.decisions off and one writing every call's record to a file; blocks of native
 * HTTP calls handed to each Hono app's `fetch`, interleaved (the order alternates every block).
 * Per block: process CPU per call (the records' digests and writes included, since they run in
 * this process) and the p50 of each call's wall time. No sockets: the few µs in question would
 * drown in a busy machine's socket noise, and every route's network cost is the same either way.
 *
 *   npx tsx bench/decision-cost.ts [--calls 5000] [--blocks 10]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeLogger } from '../src/node/logger.js';
import { startGateway } from '../src/node/server.js';
import { createApp } from '../src/server/app.js';
import {
  benchToken,
  compileBenchConfig,
  freshSecret,
  hookPath,
  MODULE_HOOK,
  REPO_ROOT,
  SECRET_ENV,
} from './lib/config.js';
import { requestText, template } from './lib/messages.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 && process.argv[i + 1] ? Number(process.argv[i + 1]) : fallback;
}

process.env[SECRET_ENV] ??= freshSecret();
const dir = mkdtempSync(join(tmpdir(), 'hookgate-bench-decisions-'));
const file = join(dir, 'decisions.ndjson');
const base = compileBenchConfig({ stdio: false });
const variants = {
  off: base,
  file: {
    ...base,
    server: {
      ...base.server,
      decisions: {
        target: { kind: 'file' as const, path: file },
        sample: 1,
        includeArgs: false,
        maxQueued: 10_000,
      },
    },
  },
};
const token = await benchToken();
const small = template('small');
const url = `http://127.0.0.1${hookPath(MODULE_HOOK)}`;
let nextId = 1;

const running = await Promise.all(
  Object.values(variants).map((config) =>
    startGateway({ config, baseDir: REPO_ROOT, host: '127.0.0.1', port: 0, log: createNodeLogger('warn') }),
  ),
);
const apps = running.map((gw) =>
  createApp({ live: gw.live, gateway: gw.gateway, log: createNodeLogger('warn'), metrics: gw.metrics }),
);

async function block(app: (typeof apps)[number], calls: number): Promise<{ cpu: number; p50: number }> {
  const walls = new Float64Array(calls);
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const body = requestText(small, nextId++);
    const t0 = performance.now();
    const res = await app.fetch(
      new Request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      }),
    );
    const text = await res.text();
    walls[i] = performance.now() - t0;
    if (!text.includes('"respond"')) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  }
  // The records of this block are written before the next block starts: their cost lands here.
  await running[apps.indexOf(app)].decisions.flush();
  const used = process.cpuUsage(started);
  walls.sort();
  return { cpu: (used.user + used.system) / calls, p50: walls[calls >> 1] * 1000 };
}

const calls = flag('calls', 5_000);
const blocks = flag('blocks', 10);
const names = Object.keys(variants);
for (let w = 0; w < 2; w++) for (const app of apps) await block(app, calls);
const results = names.map(() => ({ cpu: [] as number[], p50: [] as number[] }));
for (let b = 0; b < blocks; b++) {
  for (let k = 0; k < apps.length; k++) {
    const j = (b + k) % apps.length;
    const r = await block(apps[j], calls);
    results[j].cpu.push(r.cpu);
    results[j].p50.push(r.p50);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const f = (x: number) => x.toFixed(1);
process.stdout.write(`native HTTP → module hook, in-process fetch; median of ${blocks} blocks of ${calls}\n`);
for (let j = 0; j < names.length; j++) {
  process.stdout.write(
    `  decisions ${names[j].padEnd(5)} CPU ${f(median(results[j].cpu))} µs/call, p50 ${f(median(results[j].p50))} µs\n`,
  );
}
const dCpu = results.map((r) => median(r.cpu));
const dP50 = results.map((r) => median(r.p50));
process.stdout.write(
  `  file − off: CPU +${f(dCpu[1] - dCpu[0])} µs/call (${f(((dCpu[1] - dCpu[0]) / dCpu[0]) * 100)} %), p50 ${f(((dP50[1] - dP50[0]) / dP50[0]) * 100)} %; ${statSync(file).size} bytes of records\n`,
);
await Promise.all(running.map((gw) => gw.close()));
rmSync(dir, { recursive: true, force: true });
process.exit(0);
