/**
 * The attacking side of bench/attack.ts, in its own process so its work does not sit on the
 * victim's event loop. Over IPC: `start` launches the whole mix against the gateway for one phase,
 * `stop` ends it and returns what each attack saw.
 *
 *   slowloris   many connections that send a request's headers one byte at a time
 *   stuck       calls with 1 MiB arguments to a hook that stopped reading its stdin
 *   flood       a hook writing stderr as fast as the gateway reads it
 *   crash       a call that kills its hook, again and again (a crash loop)
 *   over-limit  a tenant calling far past its calls-per-second limit
 *   forkbomb    a hook forking until its pids limit refuses, and retrying for the whole phase
 *   membomb     a hook allocating until its memory limit kills it, again and again
 *   hammer      a hook opening connections to the gateway's port and other loopback ports
 */
import { connect, type Socket } from 'node:net';
import { Agent, request } from 'node:http';
import { announceReady, serveIpc } from '../lib/ipc.js';

interface StartArgs {
  url: string;
  token: string;
  greedyToken: string;
  slowloris: number;
  stuckInFlight: number;
  overLimitConnections: number;
  phaseMs: number;
  /** The hooks that fork, allocate and connect without bound (a gateway with per-hook limits). */
  bombs: readonly ('forkbomb' | 'membomb' | 'hammer')[];
}

type Tally = Record<string, number>;

let running = false;
let sockets: Socket[] = [];
let timers: ReturnType<typeof setInterval>[] = [];
let tasks: Promise<void>[] = [];
let tally: Tally = {};
let agent: Agent | undefined;

const count = (key: string) => {
  tally[key] = (tally[key] ?? 0) + 1;
};

function post(args: StartArgs, hook: string, body: string, tenant = 'attacker'): Promise<number> {
  return exchange(args, hook, body, tenant).then((r) => r.status);
}

/** The hook's answer as the gateway let it through: its `respond` text, else the action. */
async function answer(args: StartArgs, hook: string, body: string): Promise<string> {
  const r = await exchange(args, hook, body, 'attacker');
  try {
    const result = JSON.parse(r.text).result;
    return String(result?.result?.for_llm ?? result?.action ?? r.status);
  } catch {
    return String(r.status);
  }
}

function exchange(
  args: StartArgs,
  hook: string,
  body: string,
  tenant: string,
): Promise<{ status: number; text: string }> {
  const u = new URL(args.url);
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: u.hostname,
        port: Number(u.port),
        path: `/v1/tenants/${tenant}/hooks/${hook}`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant === 'greedy' ? args.greedyToken : args.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(body);
  });
}

const call = (tool: string, args: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params: { tool, arguments: args } });

function slowloris(args: StartArgs): void {
  const u = new URL(args.url);
  for (let i = 0; i < args.slowloris; i++) {
    const s = connect(Number(u.port), u.hostname);
    s.on('error', () => count('slowloris_socket_errors'));
    s.on('close', () => count('slowloris_closed_by_gateway'));
    s.write(`POST /v1/tenants/victim/hooks/weather HTTP/1.1\r\nHost: ${u.host}\r\nX-Slow: `);
    sockets.push(s);
  }
  timers.push(
    setInterval(() => {
      for (const s of sockets) if (!s.destroyed) s.write('a');
    }, 1000),
  );
}

async function loop(body: () => Promise<void>): Promise<void> {
  while (running) await body();
}

export function startMix(args: StartArgs): void {
  running = true;
  tally = {};
  agent = new Agent({ keepAlive: true, maxSockets: 64 });
  slowloris(args);
  const big = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < args.stuckInFlight; i++) {
    tasks.push(loop(async () => count(`stuck_http_${await post(args, 'stuck', call('anything', { big }))}`)));
  }
  tasks.push(
    loop(async () => count(`flood_http_${await post(args, 'flood', call(`flood:${args.phaseMs}`))}`)),
  );
  tasks.push(
    loop(async () => {
      count(`crash_http_${await post(args, 'crash', call('crash'))}`);
      await new Promise((r) => setTimeout(r, 50));
    }),
  );
  const port = new URL(args.url).port;
  if (args.bombs.includes('forkbomb'))
    tasks.push(
      (async () => count(`forkbomb_${await answer(args, 'forkbomb', call(`forkbomb:${args.phaseMs}`))}`))(),
    );
  if (args.bombs.includes('hammer'))
    tasks.push(
      (async () => count(`hammer_${await answer(args, 'hammer', call(`hammer:${port}:${args.phaseMs}`))}`))(),
    );
  if (args.bombs.includes('membomb'))
    tasks.push(
      loop(async () => {
        count(`membomb_${await answer(args, 'membomb', call('membomb'))}`);
        await new Promise((r) => setTimeout(r, 50));
      }),
    );
  for (let i = 0; i < args.overLimitConnections; i++) {
    tasks.push(
      loop(async () => count(`greedy_http_${await post(args, 'weather', call('get_weather'), 'greedy')}`)),
    );
  }
}

export async function stopMix(): Promise<Tally> {
  running = false;
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.destroy();
  // Calls in flight finish by the hooks' deadlines; do not wait longer than that.
  await Promise.race([Promise.all(tasks), new Promise((r) => setTimeout(r, 5_000))]);
  agent?.destroy();
  const out = { ...tally };
  sockets = [];
  timers = [];
  tasks = [];
  return out;
}

serveIpc({
  start: (args: StartArgs) => {
    startMix(args);
    return true;
  },
  stop: () => stopMix(),
});
announceReady({ pid: process.pid });
