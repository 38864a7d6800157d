import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';

/**
 * A real redis-server of the test's own on a free 127.0.0.1 port: no persistence, killed at stop.
 * Tests that need one skip (with the reason) when the binary is not installed, except in CI
 * (CI set), which installs it: there a missing binary fails them instead of hiding them.
 */
const CANDIDATES = [process.env.REDIS_SERVER, '/usr/bin/redis-server', '/usr/local/bin/redis-server'];
export const REDIS_SERVER = CANDIDATES.find((p): p is string => !!p && existsSync(p));
export const NO_REDIS_REASON = 'redis-server is not installed (set REDIS_SERVER or install redis-server)';
export const SKIP_REDIS = !REDIS_SERVER && !process.env.CI;
/** For a describe title: why it is skipped, when it is. */
export const redisNote = SKIP_REDIS ? ` (skipped: ${NO_REDIS_REASON})` : '';

export interface TestRedis {
  port: number;
  /** redis://127.0.0.1:port, or rediss:// when started with tls. */
  url: string;
  /** The redis-server process (to stall it with SIGSTOP and resume it with SIGCONT). */
  pid: number;
  stop(): Promise<void>;
}

export interface StartRedisOptions {
  /** Listen on this port (e.g. to restart a Redis where its clients expect it); default: a free one. */
  port?: number;
  /** Serve TLS only, on the port, with these PEM files (clients are not asked for certificates). */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

export async function startRedis(extraArgs: string[] = [], opts: StartRedisOptions = {}): Promise<TestRedis> {
  if (!REDIS_SERVER) throw new Error(NO_REDIS_REASON);
  const port = opts.port ?? (await freePort());
  const listen = opts.tls
    ? [
        ...['--port', '0', '--tls-port', String(port), '--tls-auth-clients', 'no'],
        ...['--tls-cert-file', opts.tls.certFile, '--tls-key-file', opts.tls.keyFile],
        ...['--tls-ca-cert-file', opts.tls.caFile],
      ]
    : ['--port', String(port)];
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    ['--save', '', '--appendonly', 'no', ...listen, '--bind', '127.0.0.1', ...extraArgs],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (b) => {
    stderr += b;
  });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `${opts.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
