/**
 * A tiny request/response protocol over Node's child-process IPC channel, so the orchestrator can
 * ask a server child for its CPU time, memory (after GC) and counters at the edges of a window.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface IpcRequest {
  seq: number;
  op: string;
  args?: unknown;
}

export interface IpcReply {
  seq: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** Child side: answers requests with the given handlers; sends `{ ready: info }` once started. */
export function serveIpc(handlers: Record<string, (args: any) => unknown | Promise<unknown>>): void {
  process.on('message', async (raw: unknown) => {
    const req = raw as IpcRequest;
    if (typeof req?.seq !== 'number') return;
    const handler = handlers[req.op];
    let reply: IpcReply;
    try {
      if (!handler) throw new Error(`unknown op ${req.op}`);
      reply = { seq: req.seq, ok: true, value: await handler(req.args) };
    } catch (err) {
      reply = { seq: req.seq, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    process.send?.(reply);
  });
  // The orchestrator went away: do not linger.
  process.on('disconnect', () => process.exit(0));
}

export function announceReady(info: unknown): void {
  process.send?.({ ready: info });
}

/** Handlers every Node server child has: CPU time, memory after GC, the profiler's clock. */
export function commonHandlers(): Record<string, (args: any) => unknown> {
  return {
    cpu: () => process.cpuUsage(),
    /** The monotonic clock the V8 profiler stamps samples with, in microseconds. */
    now: () => Number(process.hrtime.bigint() / 1000n),
    mem: (args?: { gc?: boolean }) => {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (args?.gc && gc) {
        gc();
        gc();
      }
      return { ...process.memoryUsage(), gc: Boolean(gc) };
    },
  };
}

/** Parent side. */
export class ServerChild<Ready = unknown> {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly ready: Promise<Ready>;
  private exited = false;
  readonly exitedPromise: Promise<void>;

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
    startTimeoutMs = 30_000,
  ) {
    let onReady!: (v: Ready) => void;
    let onFail!: (e: Error) => void;
    this.ready = new Promise<Ready>((resolve, reject) => {
      onReady = resolve;
      onFail = reject;
    });
    const timer = setTimeout(
      () => onFail(new Error(`${name}: not ready within ${startTimeoutMs} ms`)),
      startTimeoutMs,
    );
    proc.on('message', (raw: unknown) => {
      const m = raw as { ready?: Ready } & Partial<IpcReply>;
      if (m && 'ready' in m) {
        clearTimeout(timer);
        onReady(m.ready as Ready);
        return;
      }
      if (typeof m?.seq !== 'number') return;
      const p = this.pending.get(m.seq);
      if (!p) return;
      this.pending.delete(m.seq);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(`${name}: ${m.error}`));
    });
    this.exitedPromise = new Promise<void>((resolve) => {
      proc.once('exit', (code, signal) => {
        this.exited = true;
        clearTimeout(timer);
        onFail(new Error(`${name} exited before it was ready (${signal ?? code})`));
        for (const p of this.pending.values()) p.reject(new Error(`${name} exited (${signal ?? code})`));
        this.pending.clear();
        resolve();
      });
    });
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  request<T = unknown>(op: string, args?: unknown, timeoutMs = 30_000): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`${this.name} has exited`));
    const seq = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new Error(`${this.name}: ${op} timed out`));
      }, timeoutMs);
      this.pending.set(seq, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.proc.send({ seq, op, args } satisfies IpcRequest);
    });
  }

  /** CPU time (user + system) in microseconds, from the child itself. */
  async cpuMicros(): Promise<number> {
    const u = await this.request<{ user: number; system: number }>('cpu');
    return u.user + u.system;
  }

  /** Asks the child to stop; kills it if it has not exited within `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.exited) return;
    this.request('stop', undefined, graceMs).catch(() => {});
    const killed = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exitedPromise;
    clearTimeout(killed);
  }
}

/** Forks a TypeScript child through tsx's loader. */
export function forkTs(
  name: string,
  file: string,
  args: string[],
  opts: { execArgv?: string[]; env?: NodeJS.ProcessEnv; cwd?: string; quiet?: boolean } = {},
): ServerChild<any> {
  const proc = fork(file, args, {
    execArgv: ['--import', 'tsx', ...(opts.execArgv ?? [])],
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', opts.quiet ? 'ignore' : 'inherit', 'inherit', 'ipc'],
  });
  return new ServerChild(name, proc);
}

const CLK_TCK = 100; // Linux USER_HZ; the same on every mainstream kernel build.

/**
 * CPU time (user + system, all threads) of any process, in microseconds, from /proc: the
 * scheduler's nanosecond count per thread where the kernel keeps it (schedstat), else clock ticks
 * (10 ms, too coarse for a slice of a few hundred sequential calls).
 */
export function procCpuMicros(pid: number): number {
  const precise = schedMicros(pid);
  if (precise !== undefined) return precise;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1_000_000) / CLK_TCK;
}

/** Sum of the threads' time on the CPU (`/proc/<pid>/task/<tid>/schedstat`, ns); undefined where absent. */
function schedMicros(pid: number): number | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  let read = false;
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      read = true;
    } catch {
      // the thread ended meanwhile, or no schedstat in this kernel
    }
  }
  return read && Number.isFinite(ns) ? ns / 1000 : undefined;
}

/**
 * CPU time of a process and of every process below it, in microseconds. A sandboxed stdio hook runs
 * under the sandbox's wrapper (sh, bwrap): the wrapper's own figure is ~0 and the hook's CPU is
 * only added to it once the hook has exited, so the tree is summed instead. Descendants are found
 * by their parent pid in /proc/<pid>/stat (no /proc/<pid>/task/<tid>/children on every kernel).
 */
export function procTreeCpuMicros(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    try {
      total += procCpuMicros(pid);
    } catch {
      continue;
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Resident set size of any process, in bytes, from /proc. */
export function procRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** CPU time used by the whole machine (all cores, every process), in microseconds, from /proc/stat. */
export function systemBusyMicros(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  // cpu user nice system idle iowait irq softirq steal guest guest_nice
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
  return (busy * 1_000_000) / CLK_TCK;
}
