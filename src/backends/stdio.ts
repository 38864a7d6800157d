import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { LineSplitter } from '../core/ndjson.js';
import { JsonRpcPeer, PeerError } from '../core/peer.js';
import type { Transport } from '../core/transport.js';
import { Method, PROTOCOL_VERSION } from '../protocol/methods.js';
import { BackendError, type BackendContext, type HookBackend } from './types.js';

export interface StdioBackendOptions {
  command: readonly string[];
  env: Record<string, string>;
  cwd?: string;
  inheritEnv: boolean;
  /** Longest stdout line accepted from the hook; longer lines are dropped (the call then times out). */
  maxLineBytes: number;
  helloTimeoutMs?: number;
  /** First restart delay; doubles per crash up to maxBackoffMs, with jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

const STDERR_LINE_BYTES = 64 * 1024;
const KILL_GRACE_MS = 2_000;
const STABLE_AFTER_MS = 10_000;

/**
 * Hosts an existing PicoClaw stdio hook, unmodified: spawns it, says hello the way PicoClaw does
 * (id 1, name, version, modes), multiplexes calls over its stdin/stdout and restarts it with
 * backoff when it dies. PicoClaw itself never restarts a hook; a gateway serving many hosts must.
 */
export class StdioBackend implements HookBackend {
  readonly kind = 'stdio' as const;
  private child?: ChildProcessWithoutNullStreams;
  private peer?: JsonRpcPeer;
  private isReady = false;
  private closed = false;
  private attempts = 0;
  private restartTimer?: ReturnType<typeof setTimeout>;
  private startedAt = 0;

  constructor(
    private readonly opts: StdioBackendOptions,
    private readonly ctx: BackendContext,
  ) {}

  ready(): boolean {
    return this.isReady;
  }

  /** Resolves when the first hello succeeded; rejects (and keeps retrying) if it did not. */
  start(): Promise<void> {
    return this.spawnOnce();
  }

  async call(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    const peer = this.peer;
    if (!this.isReady || !peer) throw new BackendError('BACKEND_UNAVAILABLE', 'hook process is not running');
    try {
      return await peer.call(method, params, timeoutMs);
    } catch (err) {
      throw toBackendError(err);
    }
  }

  notify(method: string, params: unknown): void {
    if (!this.isReady || !this.peer) return;
    this.peer.notify(method, params).catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    this.isReady = false;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.stdin.end();
    });
  }

  private log(level: 'info' | 'warn' | 'error', obj: object, msg: string): void {
    this.ctx.log[level]({ tenant: this.ctx.tenant, hook: this.ctx.hook, backend: 'stdio', ...obj }, msg);
  }

  private async spawnOnce(): Promise<void> {
    const [cmd, ...args] = this.opts.command;
    const env = this.opts.inheritEnv
      ? { ...process.env, ...this.opts.env }
      : { ...baseEnv(), ...this.opts.env };
    const child = spawn(cmd, args, { cwd: this.opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.startedAt = Date.now();
    const transport = new ChildTransport(child, this.opts.maxLineBytes, (bytes) =>
      this.log('warn', { bytes }, 'hook wrote a stdout line over the limit; dropped'),
    );
    const peer = new JsonRpcPeer(transport, {
      refuseDuplicateKeys: true,
      onrequest: (m) =>
        this.log('warn', { method: 'method' in m ? m.method : undefined }, 'hook-initiated message ignored'),
      onstray: (_text, why) => this.log('warn', { why }, 'hook stdout line ignored'),
    });
    this.peer = peer;
    const stderr = new LineSplitter(
      STDERR_LINE_BYTES,
      (line) => this.log('warn', { stderr: line.slice(0, 4096) }, 'hook stderr'),
      () => {},
    );
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.on('error', (err) => this.log('error', { err: err.message }, 'hook process error'));
    child.on('exit', (code, signal) => {
      this.isReady = false;
      peer.failAll(new PeerError('PEER_CLOSED', `hook process exited (${signal ?? code})`));
      if (this.child === child) this.child = undefined;
      if (this.closed) return;
      this.log('warn', { code, signal }, 'hook process exited');
      this.scheduleRestart();
    });
    try {
      await peer.call(
        Method.Hello,
        { name: this.ctx.hook, version: PROTOCOL_VERSION, modes: this.ctx.modes },
        this.opts.helloTimeoutMs ?? 10_000,
      );
      this.isReady = !this.closed;
      this.log('info', { pid: child.pid }, 'hook process ready');
    } catch (err) {
      this.log('error', { err: (err as Error).message }, 'hook hello failed');
      child.kill('SIGKILL');
      throw toBackendError(err);
    }
  }

  private scheduleRestart(): void {
    if (Date.now() - this.startedAt > STABLE_AFTER_MS) this.attempts = 0;
    const base = Math.min(
      this.opts.maxBackoffMs ?? 30_000,
      (this.opts.backoffMs ?? 100) * 2 ** this.attempts,
    );
    this.attempts++;
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    this.restartTimer = setTimeout(() => {
      if (this.closed) return;
      this.spawnOnce().catch(() => {});
    }, delay);
  }
}

function baseEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'LANG', 'TZ', 'SYSTEMROOT']) {
    const v = process.env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function toBackendError(err: unknown): BackendError {
  if (err instanceof BackendError) return err;
  if (err instanceof PeerError) {
    switch (err.code) {
      case 'PEER_TIMEOUT':
        return new BackendError('BACKEND_TIMEOUT', err.message);
      case 'PEER_ERROR_REPLY':
        return new BackendError('BACKEND_ERROR_REPLY', err.message);
      case 'PEER_CLOSED':
        return new BackendError('BACKEND_CRASHED', err.message);
      case 'PEER_SEND_FAILED':
        return new BackendError('BACKEND_UNAVAILABLE', err.message);
      case 'PEER_BAD_REPLY':
        return new BackendError('BACKEND_BAD_REPLY', err.message);
    }
  }
  return new BackendError('BACKEND_UNAVAILABLE', err instanceof Error ? err.message : String(err));
}

/** NDJSON over a child's stdin/stdout. */
class ChildTransport implements Transport {
  onmessage?: (message: string) => void;
  onclose?: (reason?: string) => void;
  onerror?: (error: Error) => void;

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    maxLineBytes: number,
    onoversize: (bytes: number) => void,
  ) {
    const lines = new LineSplitter(maxLineBytes, (line) => this.onmessage?.(line), onoversize);
    child.stdout.on('data', (b: Buffer) => lines.push(b));
    // EPIPE after the child died is reported through 'exit'; do not crash the gateway on it.
    child.stdin.on('error', (err) => this.onerror?.(err));
  }

  async start(): Promise<void> {}

  send(message: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.child.stdin.destroyed || !this.child.stdin.writable) {
        reject(new Error('hook stdin is closed'));
        return;
      }
      this.child.stdin.write(`${message}\n`, (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
  }
}
