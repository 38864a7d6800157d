/**
 * A gateway hosting the bench's stdio weather hook with `server.sandbox` as argv[2] says (`auto`:
 * bubblewrap and a cgroup per hook where the host has them; `off`: spawned as it is; `off-setsid`:
 * unsandboxed but under setsid(1), in a session of its own), for bench/sandbox-latency.ts. Reports
 * its url, the hook's pid (the wrapper's, when sandboxed) and whether it has a controlling terminal
 * (bench/sandbox-latency.ts can start it on one: then a sandboxed hook gets a session of its own).
 */
import { compileConfig } from '../../src/config/compile.js';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from '../../src/node/server.js';
import { configDocument, REPO_ROOT, SECRET_ENV, STDIO_HOOK } from '../lib/config.js';
import { announceReady, commonHandlers, serveIpc } from '../lib/ipc.js';

const mode = process.argv[2] ?? 'auto';
const doc = configDocument({ stdio: true });
(doc.server as Record<string, unknown>).sandbox = mode === 'auto' ? 'auto' : 'off';
const hookBackend = (doc.tenants as any).bench.hooks[STDIO_HOOK].backend;
// The hook's modules (tsx) where they really are: a checkout whose node_modules links elsewhere
// (an A/B tree) must show them in the sandbox too; inside the checkout this adds nothing.
hookBackend.sandbox = { read_paths: [realpathSync(join(REPO_ROOT, 'node_modules'))] };
if (mode === 'off-setsid') {
  // Unsandboxed, but in a session of its own, as bwrap's --new-session puts a sandboxed hook.
  hookBackend.command = ['setsid', ...hookBackend.command];
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
/** tty_nr in /proc/self/stat (read here, not imported: an older checkout's src may lack the helper). */
const stat = readFileSync('/proc/self/stat', 'utf8');
const terminal = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[4]) !== 0;
announceReady({ url: gw.url, pid: process.pid, hookPid: hookPid(), terminal });
