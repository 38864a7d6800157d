/**
 * A complete PicoClaw stdio hook around a hook object (Node only; kept out of src/sdk/index.ts so
 * Worker bundles never pull node code). PicoClaw's rules, from its Go source: NDJSON both ways,
 * host-allocated integer ids echoed as numbers, several calls in flight, notifications never
 * answered, and no stdout line over 1 MiB, because a longer one stops the host's reader for good.
 */
import { realpathSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { LineSplitter, utf8Length } from '../core/ndjson.js';
import { traceMetaOf } from '../core/trace-meta.js';
import { LineBackpressure } from '../lib/line-backpressure.js';
import type { HookObject } from '../protocol/hook-object.js';
import {
  ErrorCode,
  failure,
  isNotification,
  isRequest,
  type JsonRpcId,
  parseMessage,
  success,
} from '../protocol/jsonrpc.js';
import { Method } from '../protocol/methods.js';
import { dispatchToHook, type HookReply } from './define-hook.js';

/** PicoClaw's stdout scanner buffer (processHookReadBufferSize); the newline counts. */
export const MAX_REPLY_LINE_BYTES = 1_048_576;
/** Host to hook has no limit (before_llm carries the whole history); this only stops a runaway. */
const DEFAULT_MAX_INPUT_LINE_BYTES = 64 * 1024 * 1024;
/** stderr lines have the same 1 MiB cap on the host side; stay far below it. */
const MAX_LOG_CHARS = 8 * 1024;

export interface ServeStdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  maxInputLineBytes?: number;
  /**
   * Send console.log/info/debug to stderr, so a stray log line cannot corrupt the protocol stream.
   * Default: true when stdout is the process's own stdout.
   */
  redirectConsole?: boolean;
}

export interface StdioServer {
  /** Settles when stdin has ended and every call in flight has been answered. */
  readonly done: Promise<void>;
  readonly inFlight: number;
}

export function serveStdio(hook: HookObject, options: ServeStdioOptions = {}): StdioServer {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  if (options.redirectConsole ?? stdout === process.stdout) redirectConsole();

  let hookName = hook.name ?? 'hook';
  const log = (message: string) => {
    const text = message.length > MAX_LOG_CHARS ? message.slice(0, MAX_LOG_CHARS) + '…' : message;
    stderr.write(`[${hookName}] ${text.replace(/\r?\n/g, ' ')}\n`);
  };
  const inFlight = new Set<AbortController>();
  let ended = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const settleIfDone = () => {
    if (ended && inFlight.size === 0 && flow.heldLines === 0) finish();
  };

  const write = (id: JsonRpcId, method: string, reply: HookReply) => {
    let line: string;
    try {
      line = JSON.stringify(reply.ok ? success(id, reply.result) : failure(id, reply.code, reply.message));
    } catch (err) {
      line = JSON.stringify(failure(id, ErrorCode.InternalError, `result not serialisable: ${String(err)}`));
    }
    if (utf8Length(line) + 1 > MAX_REPLY_LINE_BYTES) {
      log(
        `reply to ${method} (id ${id}) exceeds ${MAX_REPLY_LINE_BYTES} bytes; answering the neutral result`,
      );
      line = JSON.stringify(success(id, neutralResult(method)));
    }
    flow.write(line + '\n');
  };

  const handle = async (text: string) => {
    const parsed = parseMessage(text);
    if (!parsed.ok) {
      log(`ignoring an input line: ${parsed.response.error.message}`);
      return;
    }
    const message = parsed.message;
    if (!isRequest(message) && !isNotification(message)) return; // the host never answers us
    if (message.method === Method.Hello) {
      const name = (message.params as { name?: unknown } | undefined)?.name;
      if (!hook.name && typeof name === 'string') hookName = name;
    }
    const controller = new AbortController();
    const traceparent = traceMetaOf(message.params);
    const ctx = {
      method: message.method,
      tenant: '',
      hook: hookName,
      signal: controller.signal,
      traceparent,
    };
    inFlight.add(controller);
    try {
      const reply = await dispatchToHook(hook, message.method, message.params, ctx);
      if (isRequest(message)) write(message.id, message.method, reply);
      else if (!reply.ok) log(`${message.method} failed: ${reply.message}`); // never answered
    } finally {
      inFlight.delete(controller);
      settleIfDone();
    }
  };

  // A host that stops reading stdout must not make us buffer answers without end: while stdout is
  // full no new requests are taken (see LineBackpressure); answers owed still go out in order.
  const flow = new LineBackpressure(stdin, stdout, (line) => void handle(line));
  const splitter = new LineSplitter(
    options.maxInputLineBytes ?? DEFAULT_MAX_INPUT_LINE_BYTES,
    (line) => flow.line(line),
    (bytes) => log(`dropped an input line of ${bytes} bytes (over the input cap)`),
  );
  const encoder = new TextEncoder();
  stdin.on('data', (chunk: Uint8Array | string) =>
    splitter.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk),
  );
  stdin.once('end', () => {
    ended = true;
    // The host closes stdin on shutdown and kills us 2 s later: tell running handlers to stop.
    for (const controller of inFlight) controller.abort(new Error('stdin closed'));
    settleIfDone();
  });
  stdout.on('error', (err) => {
    log(`stdout failed: ${err.message}`);
    // No 'drain' will come: read on, so that stdin's end is still seen and we can finish.
    flow.release();
  });

  return {
    done,
    get inFlight() {
      return inFlight.size;
    },
  };
}

/** What the host would do without this hook; approvals stay explicit (and closed). */
function neutralResult(method: string): unknown {
  if (method === Method.ApproveTool) return { approved: false, reason: 'hook reply exceeded 1 MiB' };
  if (method === Method.Hello) return {};
  return { action: 'continue' };
}

/** True when the module at `importMetaUrl` is the program Node was asked to run. */
export function isMainModule(importMetaUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(importMetaUrl));
  } catch {
    return false;
  }
}

let consoleRedirected = false;
function redirectConsole(): void {
  if (consoleRedirected) return;
  consoleRedirected = true;
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
