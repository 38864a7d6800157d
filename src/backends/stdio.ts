import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '../core/ndjson.js';
import { JsonRpcPeer, type LineTransport, PeerError } from '../core/peer.js';
import { Backoff } from '../lib/backoff.js';
import { Method, PROTOCOL_VERSION } from '../protocol/methods.js';
import { DEFAULT_STDERR_LIMITS, HookStderr, type StderrLimits } from './stdio-stderr.js';
import { StdinQueue } from './stdin-queue.js';
import { withTraceMeta } from '../core/trace-meta.js';
import {
  BackendError,
  type BackendContext,
  type CallContext,
  type HookBackend,
  type SpawnSpec,
} from './types.js';

export interface StdioBackendOptions {
  command: readonly string[];
  env: Record<string, string>;
  cwd?: string;
  inheritEnv: boolean;
  /** Longest stdout line accepted from the hook; longer lines are dropped (the call then times out). */
  maxLineBytes: number;
  helloTimeoutMs?: number;
  /** First restart delay; doubles per failed start or crash up to maxBackoffMs, with jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Bytes the gateway holds for a hook that is not reading its stdin; past this, new calls fail at
   * once with BACKEND_OVERLOADED. Default: maxLineBytes + 4 MiB (one largest message and then some).
   */
  maxQueuedBytes?: number;
  /** A hook whose stdin has not drained for this long is killed and restarted; 0: never. */
  stdinStallMs?: number;
  stderr?: Partial<StderrLimits>;
  /** Rewrites what is spawned just before spawning it: the sandbox (src/node/sandbox/sandbox.ts). */
  wrap?: (spec: SpawnSpec) => SpawnSpec;
}

const KILL_GRACE_MS = 2_000;
const QUEUE_HEADROOM_BYTES = 4 * 1024 * 1024;
const DEFAULT_STDIN_STALL_MS = 30_000;

/** A child whose three pipes exist: spawn() leaves them null when it fails early (EMFILE). */
type PipedChild = ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };

/**
 * Hosts an existing PicoClaw stdio hook, unmodified: spawns it, says hello the way PicoClaw does
 * (id 1, name, version, modes), multiplexes calls over its stdin/stdout and restarts it with
 * backoff when it dies or fails to start. PicoClaw itself never restarts a hook; a gateway serving
 * many hosts must.
 */
export class StdioBackend implements HookBackend {
  readonly kind = 'stdio' as const;
  private child?: ChildProcess;
  private peer?: JsonRpcPeer;
  private transport?: ChildTransport;
  private isReady = false;
  private startCount = 0;
  private closed = false;
  private readonly backoff: Backoff;
  private restartTimer?: ReturnType<typeof setTimeout>;
  /** Settles when what the last spawn's wrapper made (its cgroup) is freed; close() waits for it. */
  private released?: Promise<void>;
  private readonly maxQueuedBytes: number;
  private readonly stderrLimits: StderrLimits;

  constructor(
    private readonly opts: StdioBackendOptions,
    private readonly ctx: BackendContext,
  ) {
    this.backoff = new Backoff(opts.backoffMs ?? 100, opts.maxBackoffMs ?? 30_000);
    this.maxQueuedBytes = opts.maxQueuedBytes ?? opts.maxLineBytes + QUEUE_HEADROOM_BYTES;
    this.stderrLimits = { ...DEFAULT_STDERR_LIMITS };
    for (const [k, v] of Object.entries(opts.stderr ?? {}) as [keyof StderrLimits, number | undefined][]) {
      if (v !== undefined) this.stderrLimits[k] = v;
    }
  }

  ready(): boolean {
    return this.isReady;
  }

  starts(): number {
    return this.startCount;
  }

  /** Bytes of calls held for the hook's stdin (queued, or taken by the stream but not the pipe). */
  get queuedBytes(): number {
    return this.transport?.queuedBytes ?? 0;
  }

  /** Resolves when the first hello succeeded; rejects (and keeps retrying) if it did not. */
  start(): Promise<void> {
    return this.spawnOnce();
  }

  async call(method: string, params: unknown, timeoutMs: number, ctx?: CallContext): Promise<unknown> {
    const peer = this.peer;
    if (!this.isReady || !peer) throw new BackendError('BACKEND_UNAVAILABLE', 'hook process is not running');
    const queued = this.queuedBytes;
    if (queued >= this.maxQueuedBytes) {
      throw new BackendError(
        'BACKEND_OVERLOADED',
        `hook is not reading its stdin: ${queued} bytes queued (limit ${this.maxQueuedBytes})`,
      );
    }
    try {
      const sent = ctx?.traceparent === undefined ? params : withTraceMeta(params, ctx.traceparent);
      return await peer.call(method, sent, timeoutMs);
    } catch (err) {
      throw toBackendError(err);
    }
  }

  notify(method: string, params: unknown): void {
    if (!this.isReady || !this.peer) return;
    // An event is not worth memory a hook that stopped reading would never release.
    if (this.queuedBytes >= this.maxQueuedBytes) return;
    this.peer.notify(method, params).catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    this.isReady = false;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        this.transport?.end();
      });
    }
    // A closed gateway leaves nothing of its hooks behind (their cgroups), even if it exits next.
    await this.released;
  }

  private log(level: 'info' | 'warn' | 'error', obj: object, msg: string): void {
    this.ctx.log[level]({ tenant: this.ctx.tenant, hook: this.ctx.hook, backend: 'stdio', ...obj }, msg);
  }

  private async spawnOnce(): Promise<void> {
    const [cmd, ...args] = this.opts.command;
    const env = this.opts.inheritEnv
      ? { ...process.env, ...this.opts.env }
      : { ...baseEnv(), ...this.opts.env };
    const plain: SpawnSpec = { command: cmd, args, cwd: this.opts.cwd, env };
    let run: SpawnSpec;
    try {
      run = this.opts.wrap ? this.opts.wrap(plain) : plain;
    } catch (err) {
      // The sandbox could not be prepared (its cgroup, say): no hook without it, and retry later.
      this.log('error', { err: (err as Error).message }, 'hook did not start');
      this.scheduleRestart();
      throw new BackendError('BACKEND_UNAVAILABLE', `hook did not start: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const child = await spawnChild(
      run.command,
      [...run.args],
      { cwd: run.cwd, env: run.env },
      run.extraPipes ?? 0,
    ).catch((err: Error) => err);
    const release = run.release;
    if (child instanceof Error) this.released = Promise.resolve(release?.());
    else if (release)
      child.once('exit', () => {
        this.released = Promise.resolve(release());
      });
    if (child instanceof Error) {
      // No process means no 'exit' either: the retry has to be scheduled here.
      this.log(
        'error',
        { err: child.message, code: (child as NodeJS.ErrnoException).code },
        'hook did not start',
      );
      this.scheduleRestart();
      throw new BackendError('BACKEND_UNAVAILABLE', `hook did not start: ${child.message}`, { cause: child });
    }
    if (this.closed) {
      // close() came while the process was starting: it never saw this child.
      child.kill('SIGKILL');
      throw new BackendError('BACKEND_CLOSED', 'backend closed while the hook was starting');
    }
    this.child = child;
    // A process that runs 10 s before dying restarts at the first backoff step again (lib/backoff).
    this.backoff.started();
    const transport = new ChildTransport(
      child,
      this.opts.maxLineBytes,
      this.opts.stdinStallMs ?? DEFAULT_STDIN_STALL_MS,
      {
        oversize: (bytes) => this.log('warn', { bytes }, 'hook wrote a stdout line over the limit; dropped'),
        stall: (ms) => {
          this.log(
            'error',
            { stalled_ms: ms, queued_bytes: transport.queuedBytes },
            'hook stopped reading its stdin; restarting it',
          );
          child.kill('SIGKILL');
        },
      },
    );
    this.transport = transport;
    const peer = new JsonRpcPeer(transport, {
      refuseDuplicateKeys: true,
      onrequest: (m) =>
        this.log('warn', { method: 'method' in m ? m.method : undefined }, 'hook-initiated message ignored'),
      onstray: (_text, why) => this.log('warn', { why }, 'hook stdout line ignored'),
    });
    this.peer = peer;
    const stderr = new HookStderr(this.stderrLimits, {
      line: (text) => this.log('warn', { stderr: text }, 'hook stderr'),
      dropped: () => this.ctx.count?.('hook_stderr_dropped_lines'),
      summary: (count) => this.log('warn', { dropped: count }, `hook stderr: ${count} lines dropped`),
    });
    // Always read to the end, logged or not: a hook blocked on a full stderr pipe stops answering.
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.stderr.once('end', () => stderr.end());
    child.on('exit', (code, signal) => {
      this.isReady = false;
      transport.stop(`hook process exited (${signal ?? code})`);
      peer.failAll(new PeerError('PEER_CLOSED', `hook process exited (${signal ?? code})`));
      if (this.child === child) this.child = undefined;
      if (this.closed) return;
      this.log('warn', { code, signal }, 'hook process exited');
      this.scheduleRestart();
    });
    try {
      // The sandbox's network, before the hook runs (it waits for it): a hook without it is not started.
      await run.attach?.(child);
    } catch (err) {
      this.log('error', { err: (err as Error).message }, 'hook did not start');
      child.kill('SIGKILL');
      throw new BackendError('BACKEND_UNAVAILABLE', `hook did not start: ${(err as Error).message}`, {
        cause: err,
      });
    }
    try {
      await peer.call(
        Method.Hello,
        { name: this.ctx.hook, version: PROTOCOL_VERSION, modes: this.ctx.modes },
        this.opts.helloTimeoutMs ?? 10_000,
      );
      this.isReady = !this.closed;
      this.startCount++;
      this.log('info', { pid: child.pid }, 'hook process ready');
    } catch (err) {
      // The kill's 'exit' schedules the retry, as for a crash.
      this.log('error', { err: (err as Error).message }, 'hook hello failed');
      child.kill('SIGKILL');
      throw toBackendError(err);
    }
  }

  private scheduleRestart(): void {
    if (this.closed || this.restartTimer !== undefined) return;
    const delay = this.backoff.next();
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.closed) return;
      this.spawnOnce().catch(() => {});
    }, delay);
  }
}

/**
 * Spawns with all three pipes and settles once the process runs. Failures (ENOENT, EACCES, EMFILE)
 * come as an 'error' event, sometimes after spawn() returned with null pipes: the listener is
 * attached before anything else touches the child, so none of them can become an uncaught
 * exception, and every one becomes a rejection.
 */
function spawnChild(
  cmd: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv },
  extraPipes = 0,
): Promise<PipedChild> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      const pipes = Array.from({ length: 3 + extraPipes }, () => 'pipe' as const);
      child = spawn(cmd, args, { ...options, stdio: pipes });
    } catch (err) {
      reject(err);
      return;
    }
    const onerror = (err: Error) => {
      child.removeListener('spawn', onspawn);
      reject(err);
    };
    const onspawn = () => {
      child.removeListener('error', onerror);
      // Later errors (a failed kill) are not worth a crash either.
      child.on('error', () => {});
      if (!child.stdin || !child.stdout || !child.stderr) {
        child.kill('SIGKILL');
        reject(new Error('hook process started without its stdio pipes'));
        return;
      }
      resolve(child as PipedChild);
    };
    child.once('error', onerror);
    child.once('spawn', onspawn);
  });
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

/** NDJSON over a child's stdin/stdout; stdin through a queue that respects the pipe's backpressure. */
class ChildTransport implements LineTransport {
  onmessage?: (message: string) => void;
  onclose?: (reason?: string) => void;
  onerror?: (error: Error) => void;
  private readonly queue: StdinQueue;

  constructor(
    private readonly child: PipedChild,
    maxLineBytes: number,
    stallMs: number,
    on: { oversize: (bytes: number) => void; stall: (ms: number) => void },
  ) {
    const lines = new LineSplitter(maxLineBytes, (line) => this.onmessage?.(line), on.oversize);
    child.stdout.on('data', (b: Buffer) => lines.push(b));
    // EPIPE after the child died is reported through 'exit'; do not crash the gateway on it.
    child.stdin.on('error', (err) => this.onerror?.(err));
    this.queue = new StdinQueue(child.stdin, stallMs, () => on.stall(stallMs));
  }

  get queuedBytes(): number {
    return this.queue.bytes;
  }

  async start(): Promise<void> {}

  send(message: string, timeoutMs?: number): Promise<void> {
    if (this.child.stdin.destroyed || !this.child.stdin.writable) {
      return Promise.reject(new Error('hook stdin is closed'));
    }
    return this.queue.send(`${message}\n`, timeoutMs);
  }

  sendLine(line: Uint8Array, timeoutMs?: number): Promise<void> {
    if (this.child.stdin.destroyed || !this.child.stdin.writable) {
      return Promise.reject(new Error('hook stdin is closed'));
    }
    return this.queue.send(line, timeoutMs);
  }

  stop(reason: string): void {
    this.queue.stop(reason);
  }

  /** Closes stdin (the hook's signal to exit); what is still queued is not sent. */
  end(): void {
    this.queue.stop('hook is shutting down');
    this.child.stdin.end();
  }

  async close(): Promise<void> {
    this.end();
  }
}
