/**
 * A gateway hosting the bench's stdio weather hook with `server.sandbox` as argv[2] says (`auto`:
 * bubblewrap and a cgroup per hook where the host has them; `off`: spawned as it is; `off-setsid`:
 * unsandboxed but under setsid(1), in a session of its own), for bench/sandbox-latency.ts. Reports its url and the hook's pid (the wrapper's, when sandboxed).
 */
import { compileConfig } from '../../src/config/compile.js';
import { startGateway } from '../../src/node/server.js';
import { configDocument, REPO_ROOT, SECRET_ENV, STDIO_HOOK } from '../lib/config.js';
import { announceReady, commonHandlers, serveIpc } from '../lib/ipc.js';

const mode = process.argv[2] ?? 'auto';
const doc = configDocument({ stdio: true });
(doc.server as Record<string, unknown>).sandbox = mode === 'auto' ? 'auto' : 'off';
if (mode === 'off-setsid') {
  // Unsandboxed, but in a session of its own, as bwrap's --new-session puts a sandboxed hook.
  const hook = (doc.tenants as any).bench.hooks[STDIO_HOOK].backend;
  hook.command = ['setsid', ...hook.command];
}
const config = compileConfig(doc, (ref) => {
  if (ref !== `env:${SECRET_ENV}`) return ref;
  const v = process.env[SECRET_ENV];
  if (v === undefined) throw new Error(`${ref} is not set`);
  return v;
});
const gw = await startGateway({ config, baseDir: REPO_ROOT, host: '127.0.0.1', port: 0 });

function hookPid(): number | undefined {
  for (const [hook, backend] of gw.backends) {
    if (hook.name === STDIO_HOOK) return (backend as unknown as { child?: { pid?: number } }).child?.pid;
  }
  return undefined;
}

serveIpc({
  ...commonHandlers(),
  stop: async () => {
    setTimeout(() => process.exit(0), 3000).unref();
    await gw.close();
    setImmediate(() => process.exit(0));
    return true;
  },
});
announceReady({ url: gw.url, pid: process.pid, hookPid: hookPid() });
