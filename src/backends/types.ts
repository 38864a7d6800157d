import type { Mode } from '../protocol/methods.js';
import type { ToolDefinition } from '../protocol/tool-definition.js';
import { HookgateError } from '../lib/errors.js';

/**
 * Where a hook actually runs. The gateway applies policy before and after; a backend only moves
 * one method call to the hook and back.
 *
 * `call` resolves with the hook's raw `result` (unvalidated: the gateway checks its shape) or
 * rejects with a BackendError. It must settle within `timeoutMs`; the gateway also guards an HTTP
 * backend's call, whose I/O it does not own.
 * `notify` never throws and never blocks the caller.
 */
export interface HookBackend {
  readonly kind: 'stdio' | 'module' | 'http' | 'rules';
  start(): Promise<void>;
  call(method: string, params: unknown, timeoutMs: number, ctx?: CallContext): Promise<unknown>;
  /**
   * `call` for a hook in this process: a hook that answers at once is answered at once, not through
   * a promise, and one that fails at once throws its BackendError. A promise comes back only for a
   * hook that answers later. The gateway's call path takes this where a backend has it, so a call
   * to a synchronous module hook runs to its answer without suspending (see Gateway.call).
   */
  callNow?(method: string, params: unknown, timeoutMs: number, ctx?: CallContext): unknown;
  notify(method: string, params: unknown): void;
  /** True when calls can be served now (process up, module loaded). */
  ready(): boolean;
  close(): Promise<void>;
  /**
   * How many times the hook has started: a restarted process is a new hook that may answer
   * differently, so what was learnt from it (the MCP route's tool definitions) is asked again.
   * Absent where the gateway never restarts the hook.
   */
  starts?(): number;
  /** Tool definitions the hook declares up front (an SDK hook in this process); absent where none. */
  declaredTools?(): readonly ToolDefinition[] | undefined;
}

/** Per-call context a backend may carry to the hook. */
export interface CallContext {
  /** W3C trace context of the gateway's span for this hook call (an http backend sends it as a header). */
  traceparent?: string;
}

export type BackendErrorCode =
  | 'BACKEND_TIMEOUT'
  | 'BACKEND_UNAVAILABLE'
  | 'BACKEND_CRASHED'
  | 'BACKEND_ERROR_REPLY'
  | 'BACKEND_BAD_REPLY'
  | 'BACKEND_CLOSED'
  /** The hook is not taking input (its stdin queue is full): refused at once instead of queued. */
  | 'BACKEND_OVERLOADED';

export class BackendError extends HookgateError<BackendErrorCode> {
  constructor(code: BackendErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'BackendError';
  }
}

/** What a backend learns about its hook when it is built. */
export interface BackendContext {
  tenant: string;
  hook: string;
  modes: Mode[];
  log: BackendLogger;
  /** Bumps a counter (the runtime turns it into a metric labelled with tenant and hook); optional. */
  count?: (counter: BackendCounter, by?: number) => void;
}

/** Counters a backend may bump. */
export type BackendCounter = 'hook_stderr_dropped_lines';

/** The slice of a logger a backend needs; pino and the Worker logger both satisfy it. */
export interface BackendLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What a stdio backend is about to spawn; a wrapper (the sandbox) may rewrite all of it. */
export interface SpawnSpec {
  command: string;
  args: readonly string[];
  cwd?: string;
  env: Record<string, string | undefined>;
  /**
   * Called once when what was spawned has exited or did not start: the wrapper frees what it made
   * for this spawn (the hook's cgroup, src/node/sandbox/sandbox-limits.ts); settles when that is done.
   */
  release?: () => void | Promise<void>;
  /** Pipes the process gets besides stdin, stdout and stderr: fds 3, 4, … (the sandbox's network). */
  extraPipes?: number;
  /**
   * Runs once the process was spawned and before the hook counts as started: the sandbox attaches
   * the hook's network here (src/node/sandbox/sandbox-network.ts). A rejection means the hook did not start.
   */
  attach?: (child: SpawnedProcess) => Promise<void>;
}

/** What `attach` gets of the spawned process: its pid and its pipes, stdin first (Node's streams). */
export interface SpawnedProcess {
  readonly pid?: number;
  readonly stdio: readonly unknown[];
}
