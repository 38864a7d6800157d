/**
 * The gateway of the soak (bench/soak.ts), in its own process so its RSS is its own: `startGateway`
 * with the soak's config. Answers over IPC: memory (optionally after a forced GC: run it with
 * --expose-gc), log lines by level, open WebSocket sessions, the pids of hosted stdio hooks, a
 * heap snapshot.
 *
 *   argv[2]: the config document, as a JSON file (secrets are env: references)
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { writeHeapSnapshot } from 'node:v8';
import { compileConfig } from '../../src/config/compile.js';
import { nodeSecretResolver } from '../../src/node/config-loader.js';
import { createNodeLogger } from '../../src/node/logger.js';
import { startGateway } from '../../src/node/server.js';
import { REPO_ROOT } from '../lib/config.js';
import { announceReady, commonHandlers, serveIpc } from '../lib/ipc.js';

const doc = JSON.parse(readFileSync(process.argv[2], 'utf8')) as unknown;
const config = compileConfig(doc, nodeSecretResolver(REPO_ROOT));

/** Log lines counted by level (warn, error, fatal at log_level warn); lines are passed on to stderr. */
const levels: Record<string, number> = {};
const lastLines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      const level = /"level":"?(\w+)/.exec(line)?.[1] ?? '?';
      levels[level] = (levels[level] ?? 0) + 1;
      lastLines.push(line.slice(0, 400));
      if (lastLines.length > 20) lastLines.shift();
    }
    process.stderr.write(chunk, () => cb());
  },
});

const gw = await startGateway({
  config,
  baseDir: REPO_ROOT,
  host: '127.0.0.1',
  port: 0,
  log: createNodeLogger(config.server.logLevel, sink),
});

function stdioPids(): number[] {
  const pids: number[] = [];
  for (const backend of gw.live.current.backends.values()) {
    const pid = (backend as unknown as { child?: { pid?: number } }).child?.pid;
    if (pid) pids.push(pid);
  }
  return pids;
}

serveIpc({
  ...commonHandlers(),
  logs: () => ({ levels: { ...levels }, last: [...lastLines] }),
  sessions: () => gw.sessions.size,
  stdioPids: () => stdioPids(),
  /** A heap snapshot (after GC) into `dir`; returns its path. */
  heapSnapshot: (args: { dir: string }) => {
    (globalThis as { gc?: () => void }).gc?.();
    return writeHeapSnapshot(`${args.dir}/soak-gateway-${process.pid}-${Date.now()}.heapsnapshot`);
  },
  stop: async () => {
    setTimeout(() => process.exit(0), 5000).unref();
    await gw.close();
    setImmediate(() => process.exit(0));
    return true;
  },
});
announceReady({ url: gw.url, port: gw.port, pid: process.pid, stdioPids: stdioPids() });
