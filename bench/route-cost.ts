/**
 * The gateway's own CPU per call on the native HTTP route and on each host dialect's route, without
 * sockets: one process, the bench config's module hook, requests handed to the Hono app's `fetch`,
 * blocks of calls on the routes interleaved (the order rotates every block) and timed by process
 * CPU. What a socket-level run (`npm run bench`) cannot resolve on a busy two-core machine, the few
 * µs one route's own code adds, this shows; the network and adapter work every route shares is left
 * out. Every route asks the same hook about its own tool (get_weather), which answers `respond`.
 *
 *   npx tsx bench/route-cost.ts [--calls 10000] [--blocks 12] [--routes native,claude-code,...]
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

/** A route: its path under the hook, one request body, and what its answer must contain. */
interface Route {
  path: string;
  body: () => string;
  /** A path that answers fast by failing must not look fast. */
  expect: string;
  /** Headers of its own (the MCP route's accept and protocol version). */
  headers?: Record<string, string>;
}

const MODERN_ENVELOPE = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.328' },
  'io.modelcontextprotocol/clientCapabilities': { roots: {}, elicitation: {} },
});
const OPENCLAW_CTX = { agentId: 'main', sessionKey: 'agent:main:main', runId: 'run-bench-1' };
const ROUTES: Record<string, Route> = {
  native: { path: '', body: () => requestText(small, nextId++), expect: '"respond"' },
  // respond leaves as a deny carrying the result text.
  'claude-code': { path: '/claude-code', body: () => CLAUDE_CODE_SMALL, expect: '"deny"' },
  // before_tool_call: respond leaves as a block whose reason is the result text.
  openclaw: {
    path: '/openclaw',
    body: () =>
      JSON.stringify({
        hook: 'before_tool_call',
        event: {
          toolName: 'get_weather',
          params: { city: 'Berlin' },
          runId: 'run-bench-1',
          toolCallId: 'call_1',
        },
        ctx: OPENCLAW_CTX,
      }),
    expect: '"block":true',
  },
  // The plugin-registered tool's execute: respond is the tool result.
  'openclaw-tool': {
    path: '/openclaw',
    body: () =>
      JSON.stringify({
        hook: 'hookgate.execute_tool',
        event: { toolName: 'get_weather', params: { city: 'Berlin' }, toolCallId: 'call_1' },
        ctx: OPENCLAW_CTX,
      }),
    expect: '"ok":true',
  },
  hermes: {
    path: '/hermes',
    body: () =>
      JSON.stringify({
        hook_event_name: 'pre_tool_call',
        tool_name: 'get_weather',
        tool_input: { city: 'Berlin' },
        session_id: 'sess-bench-1',
        cwd: '/home/bench/project',
        extra: { task_id: 'task-1', tool_call_id: 'call-1', turn_id: 'turn-1' },
      }),
    expect: '"block"',
  },
  // MCP tools/call on the stateless route, as a 2025-11-25 client sends it after initialize.
  mcp: {
    path: '/mcp',
    body: () =>
      `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Berlin"}}}`,
    expect: '"content":[{"type":"text"',
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  },
  // The same call as a 2026-07-28 client (Claude Code) sends it: the _meta envelope, mirrored headers.
  'mcp-2026': {
    path: '/mcp',
    body: () =>
      `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Berlin"},"_meta":${MODERN_ENVELOPE}}}`,
    expect: '"content":[{"type":"text"',
    headers: {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_weather',
    },
  },
};

async function call(route: Route): Promise<void> {
  const body = route.body();
  const res = await app.fetch(
    new Request(`${base}${route.path}`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        authorization: `Bearer ${token}`,
        ...route.headers,
      },
    }),
  );
  const text = await res.text();
  if (res.status !== 200 || !text.includes(route.expect)) {
    throw new Error(`unexpected answer on ${route.path || 'native'} (${res.status}): ${text.slice(0, 200)}`);
  }
}

async function block(route: Route, calls: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call(route);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

const calls = flag('calls', 10_000);
const blocks = flag('blocks', 12);
const i = process.argv.indexOf('--routes');
const names = i !== -1 ? process.argv[i + 1].split(',') : Object.keys(ROUTES);
for (const n of names)
  if (!ROUTES[n]) throw new Error(`no route ${n}; routes: ${Object.keys(ROUTES).join(', ')}`);
if (names[0] !== 'native') names.unshift('native');
for (let w = 0; w < 2; w++) for (const n of names) await block(ROUTES[n], calls);
const perRoute = new Map<string, number[]>(names.map((n) => [n, []]));
for (let b = 0; b < blocks; b++) {
  // Rotate the order: no route always runs first or last.
  for (let k = 0; k < names.length; k++) {
    const n = names[(b + k) % names.length];
    perRoute.get(n)!.push(await block(ROUTES[n], calls));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const f = (x: number) => x.toFixed(1);
const native = perRoute.get('native')!;
process.stdout.write(
  `CPU µs per call, median of ${blocks} blocks of ${calls} (min); minus native per block: median, range\n`,
);
for (const n of names) {
  const xs = perRoute.get(n)!;
  const extra = xs.map((v, j) => v - native[j]);
  const vs =
    n === 'native'
      ? ''
      : `; − native ${f(median(extra))} (${f(Math.min(...extra))} … ${f(Math.max(...extra))})`;
  process.stdout.write(`  ${n.padEnd(14)} ${f(median(xs))} (${f(Math.min(...xs))})${vs}\n`);
}
await gw.close();
process.exit(0);
