/**
 * The gateway's own CPU per call on the native HTTP route and on the Claude Code route, without
 * sockets: one process, the bench config's module hook, requests handed to the Hono app's `fetch`,
 * blocks of calls on the two routes interleaved (A B B A …) and timed by process CPU. What a
 * socket-level run (`npm run bench`) cannot resolve on a busy two-core machine, the few µs one
 * route's own code adds, this shows; the network and adapter work both routes share is left out.
 *
 *   npx tsx bench/route-cost.ts [--calls 10000] [--blocks 12]
 */
import {
  benchToken,
  compileBenchConfig,
  freshSecret,
  hookPath,
  MODULE_HOOK,
  REPO_ROOT,
  SECRET_ENV,
} from './lib/config.js';
import { CLAUDE_CODE_SMALL } from './lib/clients.js';
import { requestText, template } from './lib/messages.js';
import { createNodeLogger } from '../src/node/logger.js';
import { startGateway } from '../src/node/server.js';
import { createApp } from '../src/server/app.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 && process.argv[i + 1] ? Number(process.argv[i + 1]) : fallback;
}

process.env[SECRET_ENV] ??= freshSecret();
const gw = await startGateway({
  config: compileBenchConfig({ stdio: false }),
  baseDir: REPO_ROOT,
  host: '127.0.0.1',
  port: 0,
});
const app = createApp({
  live: gw.live,
  gateway: gw.gateway,
  log: createNodeLogger('warn'),
  metrics: gw.metrics,
});
const token = await benchToken();
const small = template('small');
const base = `http://127.0.0.1${hookPath(MODULE_HOOK)}`;
let nextId = 100_000;

async function call(claudeCode: boolean): Promise<void> {
  const body = claudeCode ? CLAUDE_CODE_SMALL : requestText(small, nextId++);
  const res = await app.fetch(
    new Request(claudeCode ? `${base}/claude-code` : base, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        authorization: `Bearer ${token}`,
      },
    }),
  );
  const text = await res.text();
  // A path that answers fast by failing must not look fast.
  if (res.status !== 200 || !text.includes(claudeCode ? '"deny"' : '"respond"')) {
    throw new Error(`unexpected answer (${res.status}): ${text.slice(0, 200)}`);
  }
}

async function block(claudeCode: boolean, calls: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call(claudeCode);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

const calls = flag('calls', 10_000);
const blocks = flag('blocks', 12);
for (let i = 0; i < 2; i++) {
  await block(false, calls);
  await block(true, calls);
}
const native: number[] = [];
const cc: number[] = [];
for (let i = 0; i < blocks; i++) {
  // A B B A: neither route always runs second.
  const order = i % 2 === 0 ? [false, true] : [true, false];
  for (const claudeCode of order) (claudeCode ? cc : native).push(await block(claudeCode, calls));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const extra = cc.map((v, i) => v - native[i]);
const f = (x: number) => x.toFixed(1);
process.stdout.write(
  `CPU µs per call, median of ${blocks} blocks of ${calls} (min): native ${f(median(native))} (${f(Math.min(...native))}), ` +
    `Claude Code ${f(median(cc))} (${f(Math.min(...cc))}); Claude Code − native per block: median ${f(median(extra))}, ` +
    `range ${f(Math.min(...extra))} … ${f(Math.max(...extra))}\n`,
);
await gw.close();
process.exit(0);
