/**
 * What one large body of many small objects costs the gateway, and so every other tenant: the
 * event loop is busy while it parses and checks the body. Sends a ~7 MB body of 150,000 small
 * objects to the native route (`POST …/hooks/weather`, a before_tool whose arguments hold them) and
 * to the MCP route (a JSON-RPC batch of 150,000 pings), each several times, and reports per body:
 * the gateway's CPU time, the wall time until its answer, and the longest wait of small calls a
 * second client keeps sending meanwhile (what another tenant sees).
 *
 *   npx tsx bench/body-cost.ts [--reps 5] [--objects 150000] [--profile]
 *
 * `--profile` runs the gateway under `node --cpu-prof` (profiles in bench/results/profiles/, not
 * committed; summarise with `npx tsx bench/profile.ts --summarise FILE`).
 */
import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { benchToken, freshSecret, hookPath, MODULE_HOOK, REPO_ROOT, SECRET_ENV } from './lib/config.js';
import { forkTs } from './lib/ipc.js';
import { median } from './lib/stats.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const REPS = Number(flag('reps', '5'));
const OBJECTS = Number(flag('objects', '150000'));
const PROFILE = process.argv.includes('--profile');
/** Only the cases whose name contains this. */
const ONLY = flag('only', '');

/** Small objects of ~46 bytes each, as the red team's body had. */
function objects(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`{"id":${100000 + i},"name":"item-${i % 1000}","ok":true}`);
  return `[${parts.join(',')}]`;
}

/** Objects whose one key is new each time: V8 builds a hidden class for every one. */
function distinctKeyObjects(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`{"key_${100000 + i}":{"name":"item-${i % 1000}","ok":true}}`);
  return `[${parts.join(',')}]`;
}

function nativeBody(items: string): string {
  return `{"jsonrpc":"2.0","id":1,"method":"hook.before_tool","params":{"meta":{"AgentID":"a","SessionKey":"s"},"tool":"lookup","arguments":{"items":${items}}}}`;
}

/** The same objects as a before_llm's conversation: one message each. */
function llmBody(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`{"role":"user","content":"m${i % 1000}"}`);
  return `{"jsonrpc":"2.0","id":1,"method":"hook.before_llm","params":{"meta":{"AgentID":"a","SessionKey":"s"},"model":"m","messages":[${parts.join(',')}],"tools":[]}}`;
}

function mcpBatch(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`{"jsonrpc":"2.0","id":${i + 1},"method":"ping"}`);
  return `[${parts.join(',')}]`;
}

const SMALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'hook.before_tool',
  params: { meta: { AgentID: 'a', SessionKey: 's' }, tool: 'get_weather', arguments: { city: 'Berlin' } },
});

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function post(
  port: number,
  path: string,
  token: string,
  body: string,
  mcp = false,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(mcp
            ? { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Sample {
  cpuMs: number;
  wallMs: number;
  /** The longest a small call waited while the big body was in flight. */
  stallMs: number;
  status: number;
}

async function main(): Promise<void> {
  process.env[SECRET_ENV] ??= freshSecret();
  const token = await benchToken();
  const execArgv: string[] = [];
  if (PROFILE) {
    const dir = join(REPO_ROOT, 'bench/results/profiles');
    mkdirSync(dir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const gw = forkTs('gateway', join(REPO_ROOT, 'bench/children/gateway.ts'), ['{"stdio":false}'], {
    execArgv,
    quiet: true,
  });
  const ready = (await gw.ready) as { port: number };
  const native = hookPath(MODULE_HOOK);
  const cases = [
    {
      name: `native route, ${OBJECTS} objects in the arguments`,
      path: native,
      body: nativeBody(objects(OBJECTS)),
      mcp: false,
    },
    {
      name: `native route, ${OBJECTS} objects with distinct keys in the arguments`,
      path: native,
      body: nativeBody(distinctKeyObjects(OBJECTS)),
      mcp: false,
    },
    {
      name: `native route, before_llm with ${OBJECTS} messages`,
      path: native,
      body: llmBody(OBJECTS),
      mcp: false,
    },
    {
      name: `native route, a JSON array of ${OBJECTS} objects`,
      path: native,
      body: objects(OBJECTS),
      mcp: false,
    },
    {
      name: `native route, a JSON array of ${OBJECTS} objects with distinct keys`,
      path: native,
      body: distinctKeyObjects(OBJECTS),
      mcp: false,
    },
    {
      name: `MCP route, a batch of ${OBJECTS} pings`,
      path: `${native}/mcp`,
      body: mcpBatch(OBJECTS),
      mcp: true,
    },
  ];
  try {
    // Warm up both routes (and the hook).
    for (let i = 0; i < 20; i++) await post(ready.port, native, token, SMALL);
    console.log(
      `| body | size | status | gateway CPU ms (median) | wall ms (median) | longest small-call wait ms (median) |`,
    );
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const c of cases.filter((x) => x.name.includes(ONLY))) {
      const samples: Sample[] = [];
      for (let r = 0; r < REPS; r++) {
        const cpu0 = await gw.cpuMicros();
        const started = performance.now();
        let done = false;
        let stall = 0;
        const probe = (async () => {
          while (!done) {
            const t = performance.now();
            await post(ready.port, native, token, SMALL);
            stall = Math.max(stall, performance.now() - t);
          }
        })();
        const res = await post(ready.port, c.path, token, c.body, c.mcp);
        const wallMs = performance.now() - started;
        done = true;
        await probe;
        const cpuMs = ((await gw.cpuMicros()) - cpu0) / 1000;
        samples.push({ cpuMs, wallMs, stallMs: stall, status: res.status });
      }
      const mb = (Buffer.byteLength(c.body) / 1024 / 1024).toFixed(1);
      const statuses = [...new Set(samples.map((s) => s.status))].join(', ');
      console.log(
        `| ${c.name} | ${mb} MiB | ${statuses} | ${median(samples.map((s) => s.cpuMs)).toFixed(0)} | ${median(samples.map((s) => s.wallMs)).toFixed(0)} | ${median(samples.map((s) => s.stallMs)).toFixed(0)} |`,
      );
    }
  } finally {
    agent.destroy();
    await gw.stop();
  }
}

await main();
