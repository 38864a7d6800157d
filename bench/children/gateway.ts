/**
 * The gateway under test, in its own process: `startGateway` with the bench config. Answers the
 * orchestrator over IPC: CPU time, memory after GC (run with --expose-gc), open WebSocket sessions,
 * token verification counters and the pid of a hosted stdio hook.
 *
 *   argv[2]: JSON GatewayVariant
 */
import { writeHeapSnapshot } from 'node:v8';
import { TenantVerifier } from '../../src/auth/verifier.js';
import { startGateway } from '../../src/node/server.js';
import { compileBenchConfig, type GatewayVariant, REPO_ROOT, STDIO_HOOK } from '../lib/config.js';
import { announceReady, commonHandlers, serveIpc } from '../lib/ipc.js';

const variant = JSON.parse(process.argv[2] ?? '{"stdio":false}') as GatewayVariant;

// Count what the auth middleware asks for (authenticate: one lookup per HTTP call or upgrade,
// reported as `verify`) and what it really verifies (verifyUncached: signature + claims),
// so the report can show that a WebSocket verifies once per connection and HTTP hits the cache.
const counters = { verify: 0, verifyUncached: 0 };
const proto = TenantVerifier.prototype as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
for (const [name, counter] of [
  ['authenticate', 'verify'],
  ['verifyUncached', 'verifyUncached'],
] as const) {
  const original = proto[name];
  proto[name] = function (this: unknown, ...args: unknown[]) {
    counters[counter]++;
    return original.apply(this, args);
  };
}

const config = compileBenchConfig(variant);
const gw = await startGateway({ config, baseDir: REPO_ROOT, host: '127.0.0.1', port: 0 });

function stdioHookPid(): number | undefined {
  for (const [hook, backend] of gw.backends) {
    if (hook.name === STDIO_HOOK) return (backend as unknown as { child?: { pid?: number } }).child?.pid;
  }
  return undefined;
}

serveIpc({
  ...commonHandlers(),
  counters: () => ({ ...counters }),
  sessions: () => gw.sessions.size,
  hookPid: () => stdioHookPid(),
  /** A heap snapshot (after GC) into `dir`; returns its path. */
  heapSnapshot: (args: { dir: string }) => {
    (globalThis as { gc?: () => void }).gc?.();
    return writeHeapSnapshot(`${args.dir}/gateway-${process.pid}-${Date.now()}.heapsnapshot`);
  },
  stop: async () => {
    setTimeout(() => process.exit(0), 3000).unref();
    await gw.close();
    setImmediate(() => process.exit(0));
    return true;
  },
});
announceReady({ url: gw.url, port: gw.port, pid: process.pid, hookPid: stdioHookPid() });
