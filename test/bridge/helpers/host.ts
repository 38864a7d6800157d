import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Drives the bridge the way PicoClaw does: spawns it, writes compact JSON lines to its stdin (hello
 * as id 1, then integer ids counting up, several calls in flight, notifications in between), reads
 * NDJSON answers from stdout and keeps stderr for inspection.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUNNER = 'test/bridge/fixtures/run-bridge.ts';

export const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2VjcmV0LXNpZ25hdHVyZS1kby1ub3QtbG9n';

export interface Answer {
  jsonrpc: string;
  id: number;
  result?: any;
  error?: { code: number; message: string };
}

export class TestHost {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line as written, for checks on the raw text. */
  readonly lines: string[] = [];
  readonly answers = new Map<number, Answer>();
  stderr = '';
  private nextId = 1;
  private buffer = '';
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], env: Record<string, string | undefined> = { HOOKGATE_TOKEN: TOKEN }) {
    this.child = spawn(process.execPath, ['--import', 'tsx', RUNNER, ...args], {
      cwd: ROOT,
      env: { ...process.env, HOOKGATE_TOKEN: undefined, ...env },
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl = this.buffer.indexOf('\n');
      while (nl !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        const msg = JSON.parse(line) as Answer;
        this.answers.set(msg.id, msg);
        nl = this.buffer.indexOf('\n');
      }
      this.wake();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
      this.wake();
    });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  send(msg: unknown): void {
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  /** Sends a request with the next host id and returns the id. */
  request(method: string, params: unknown): number {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return id;
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  hello(modes: string[] = ['tool', 'approve']): number {
    return this.request('hook.hello', { name: 'hook-adapter', version: 1, modes });
  }

  async call(method: string, params: unknown, timeoutMs = 30_000): Promise<Answer> {
    return this.answer(this.request(method, params), timeoutMs);
  }

  answer(id: number, timeoutMs = 30_000): Promise<Answer> {
    return this.until(() => this.answers.get(id), timeoutMs, `answer to id ${id}`);
  }

  /** Resolves once the bridge process is up (node and tsx can take seconds on a loaded machine). */
  async ready(timeoutMs = 30_000): Promise<void> {
    await this.waitForStderr(/bridge starting/, timeoutMs);
  }

  waitForStderr(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    return this.until(() => this.stderr.match(pattern)?.[0], timeoutMs, `stderr ${pattern}`);
  }

  /** The JSON log lines written to stderr. */
  logs(): Array<Record<string, any>> {
    return this.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>);
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  until<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): void => {
        const v = probe();
        if (v === undefined) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(v);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls a condition (for state kept outside the host, e.g. the gateway's counters). */
export async function eventually(
  probe: () => boolean,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export const beforeToolParams = (tool: string, args: Record<string, unknown> = {}) => ({
  meta: { AgentID: 'main', TurnID: 'main-turn-1', ParentTurnID: '', SessionKey: 'sk', Iteration: 1 },
  tool,
  arguments: args,
});
