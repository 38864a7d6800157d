import { LineSplitter } from '../core/ndjson.js';
import { LineBackpressure } from '../lib/line-backpressure.js';
import { type BridgeStats, StdioBridge } from './bridge.js';
import { EventForwarder } from './events.js';
import { type BridgeLog, createLogger, processStderr } from './log.js';
import { type BridgeOptions, BridgeUsageError, parseBridgeArgs, USAGE } from './options.js';
import type { Upstream } from './upstream.js';
import { AutoUpstream } from './upstream-auto.js';
import { HttpUpstream } from './upstream-http.js';
import { WsUpstream } from './upstream-ws.js';

export type { BridgeOptions, LogLevel, OnFailure, TransportMode } from './options.js';
export { BridgeUsageError, endpointsFromUrl, parseBridgeArgs, TOKEN_ENV, USAGE } from './options.js';

export interface BridgeIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export type RunBridgeOptions = BridgeOptions &
  Partial<BridgeIo> & {
    /**
     * The bridge is this process (`hookgate bridge`): an exception or rejection nothing caught is
     * logged and the bridge goes on answering, instead of Node ending the process. PicoClaw skips a
     * hook whose process died (its interceptors fail open) until it is restarted, so a bridge that
     * exits would turn a guard off.
     */
    guardProcess?: boolean;
  };

export interface BridgeHandle {
  /**
   * Resolves with the exit code once stdin has ended, every call read before that is answered and
   * the upstream is closed.
   */
  readonly done: Promise<number>;
  /** Stops as if stdin had ended: the calls in flight are answered first. */
  close(): Promise<number>;
  stats(): BridgeStats & { eventsForwarded: number; eventsDropped: number; pending: number };
}

const NO_BYTES: Buffer = Buffer.alloc(0);

/**
 * Host→hook lines have no size limit in PicoClaw (before_llm carries the whole history), so the cap
 * sits well above the largest message the gateway takes: a call between the two is still answered
 * (by the failure mode, with its id); only a line beyond this is dropped and left to PicoClaw's timeout.
 */
function stdinLineCap(options: BridgeOptions): number {
  return Math.max(64 * 1024 * 1024, options.maxMessageBytes + 1024 * 1024);
}

function createUpstream(options: BridgeOptions, log: BridgeLog): Upstream {
  const { wsUrl, httpUrl, token } = options;
  if (options.transport === 'ws') return new WsUpstream({ url: wsUrl, token, log });
  if (options.transport === 'http') {
    log.info('using the gateway over HTTP POST', { transport: 'http' });
    return new HttpUpstream({ url: httpUrl, token, log });
  }
  return new AutoUpstream({ wsUrl, httpUrl, token, log });
}

function plaintextWarning(options: BridgeOptions, log: BridgeLog): void {
  const url = new URL(options.transport === 'http' ? options.httpUrl : options.wsUrl);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if ((url.protocol === 'ws:' || url.protocol === 'http:') && !loopback) {
    log.warn('the gateway URL is not encrypted: the token travels in clear text; use wss://');
  }
}

/** Logs what nothing caught instead of letting it end the process; returns the undo. */
function guardProcess(log: BridgeLog): () => void {
  const onUncaught = (err: unknown) =>
    log.error('an error nothing caught; the bridge goes on answering', { error: err });
  const onUnhandled = (reason: unknown) =>
    log.error('a rejection nothing handled; the bridge goes on answering', { error: reason });
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  return () => {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUnhandled);
  };
}

/** Runs the bridge on the given streams (process stdio by default). Never writes to stdout but answers. */
export async function runBridge(options: RunBridgeOptions): Promise<BridgeHandle> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = createLogger(options.stderr ?? processStderr(), options.logLevel, [options.token]);
  log.info('bridge starting', {
    url: options.transport === 'http' ? options.httpUrl : options.wsUrl,
    transport: options.transport,
    on_failure: options.onFailure,
    timeout_ms: options.timeoutMs,
    approval_timeout_ms: options.approvalTimeoutMs,
    allow_respond: options.allowRespond,
  });
  plaintextWarning(options, log);
  const unguard = options.guardProcess ? guardProcess(log) : () => undefined;

  const upstream = createUpstream(options, log);
  const events = new EventForwarder((m, p) => upstream.notify(m, p), log);
  // A host that went away makes stdout fail with EPIPE; without a listener that would crash us.
  stdout.on('error', (err) => {
    log.warn('stdout failed; answers can no longer be delivered', { error: err });
    flow.release(); // no 'drain' will come: read on, so that stdin's end is still seen
  });
  // While PicoClaw is not reading stdout, no new lines are taken from stdin: answers owed still go
  // out in order, but nothing more piles up behind them.
  const flow = new LineBackpressure(stdin, stdout, (line) => {
    try {
      bridge.handleLine(line);
    } catch (err) {
      // One bad line must not take the hook down: PicoClaw would lose every later call.
      log.error('failed to handle a stdin line', { error: err });
    }
  });
  const bridge = new StdioBridge(options, upstream, events, flow, log);
  const splitter = new LineSplitter(
    stdinLineCap(options),
    (line) => flow.line(line),
    (bytes) => log.warn('dropped a stdin line over the size cap', { bytes }),
  );

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });
  let stopping: Promise<number> | undefined;
  const stop = (why: string): Promise<number> => {
    stopping ??= (async () => {
      stdin.removeListener('data', onData);
      // A paused stdin no longer holds the event loop open (close() may come before EOF).
      stdin.pause();
      // Lines read but held back while stdout was full are handled too: they were read.
      flow.release(false);
      // What was read is finished before exiting, as the SDK's serveStdio does: every call in
      // flight gets its real answer (or its failure answer at its deadline), written out, and only
      // then does the upstream close. `printf '<call>\n' | hookgate bridge` answers the call.
      // PicoClaw itself closes stdin only when it stops, and kills us 2 s later.
      await bridge.idle();
      bridge.stop();
      events.close();
      await upstream.close().catch(() => undefined);
      // Closing fails what was still being sent; let those land in the counters before reporting.
      await events.settled(250);
      log.info('bridge stopped', {
        why,
        calls: bridge.stats.calls,
        failures: bridge.stats.failures,
        replaced: bridge.stats.replaced,
        events_forwarded: events.forwarded,
        events_dropped: events.dropped,
      });
      unguard();
      resolveDone(0);
      return 0;
    })();
    return stopping;
  };
  // The calls of one chunk go upstream in one write (see Upstream.batch); no closure per chunk.
  let chunkNow = NO_BYTES;
  const pushChunk = (): void => splitter.push(chunkNow);
  const onData = (chunk: Buffer | string): void => {
    chunkNow = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (upstream.batch) upstream.batch(pushChunk);
    else pushChunk();
    chunkNow = NO_BYTES;
  };
  stdin.on('data', onData);
  stdin.once('end', () => void stop('stdin closed'));
  stdin.once('close', () => void stop('stdin closed'));
  stdin.once('error', (err) => {
    log.warn('stdin failed', { error: err });
    void stop('stdin failed');
  });
  if ('resume' in stdin && typeof stdin.resume === 'function') stdin.resume();

  return {
    done,
    close: () => stop('closed'),
    stats: () => ({
      ...bridge.stats,
      eventsForwarded: events.forwarded,
      eventsDropped: events.dropped,
      pending: bridge.pending,
    }),
  };
}

/**
 * `hookgate bridge …` on the process's own stdio. Resolves with the exit code: 0 when stdin ends
 * (PicoClaw closes it, then SIGKILLs after 2 s), 2 for bad flags or a missing token.
 */
export async function bridgeCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let options: BridgeOptions;
  try {
    options = parseBridgeArgs(argv, process.env);
  } catch (err) {
    if (!(err instanceof BridgeUsageError)) throw err;
    process.stderr.write(`hookgate bridge: ${err.message}\n`);
    return 2;
  }
  const handle = await runBridge({ ...options, guardProcess: true });
  return handle.done;
}
