/**
 * supergateway (the devDependency, as published) run as a child process: stdio → Streamable HTTP,
 * stateful (one MCP stdio server process per session), in front of children/mcp-stdio-weather.ts.
 * Its listening socket is held to 127.0.0.1 by a preload (children/loopback-listen.mjs), which also
 * reports the port it got; logging is off (`--logLevel none`: at `info` it logs every message, which
 * the gateway, at `warn`, does not).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PATH = '/mcp';

export interface Supergateway {
  proc: ChildProcess;
  version: string;
  /** The Streamable HTTP endpoint. */
  url: string;
  /** The processes it started (the shells and MCP stdio servers of its sessions), all generations. */
  descendants(): number[];
  /** SIGTERM (it stops its sessions' process groups itself), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Why supergateway cannot run here, or undefined. */
export function supergatewayMissing(repoRoot: string): string | undefined {
  return existsSync(join(repoRoot, 'node_modules/supergateway/dist/index.js'))
    ? undefined
    : 'skipped: supergateway is not installed (npm install)';
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export async function startSupergateway(repoRoot: string, startTimeoutMs = 30_000): Promise<Supergateway> {
  const dir = join(repoRoot, 'node_modules/supergateway');
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  // supergateway runs this through a shell, in its own working directory (the repository's).
  const stdioCommand = [process.execPath, '--import', 'tsx', 'bench/children/mcp-stdio-weather.ts']
    .map(shellQuote)
    .join(' ');
  const proc = fork(
    join(dir, 'dist/index.js'),
    [
      '--stdio',
      stdioCommand,
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      '0',
      '--streamableHttpPath',
      PATH,
      '--logLevel',
      'none',
    ],
    {
      cwd: repoRoot,
      execArgv: ['--import', pathToFileURL(join(repoRoot, 'bench/children/loopback-listen.mjs')).href],
      // stdin ignored: supergateway stops when a stdin pipe closes.
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('supergateway: not listening in time')), startTimeoutMs);
    proc.on('message', (m: { ready?: { port?: number } }) => {
      if (typeof m?.ready?.port !== 'number') return;
      clearTimeout(timer);
      resolve(m.ready.port);
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`supergateway exited before it listened (${signal ?? code})`));
    });
  });
  return {
    proc,
    version,
    url: `http://127.0.0.1:${port}${PATH}`,
    descendants: () => descendantsOf(proc.pid!),
    async stop(graceMs = 8_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Every live descendant of `pid`, from /proc/<pid>/task/<tid>/children. */
export function descendantsOf(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      return; // exited
    }
    for (const tid of tids) {
      let children: string;
      try {
        children = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const c of children.split(' ').filter(Boolean).map(Number)) {
        out.push(c);
        walk(c);
      }
    }
  };
  walk(pid);
  return out;
}
