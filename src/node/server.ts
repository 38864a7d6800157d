import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { type WebSocket, WebSocketServer } from 'ws';
import { StdioBackend } from '../backends/stdio.js';
import type { HookBackend } from '../backends/types.js';
import type { GatewayConfig, HookRuntime } from '../config/runtime.js';
import { CloseCode } from '../lib/close-codes.js';
import { HookgateError } from '../lib/errors.js';
import { createApp } from '../server/app.js';
import { WS_PROTOCOL } from '../server/auth.js';
import { assembleGateway } from '../server/assemble.js';
import type { BackendFactories } from '../server/backends.js';
import type { Gateway } from '../server/gateway.js';
import type { LiveConfig } from '../server/live-config.js';
import type { Logger } from '../server/logger.js';
import type { Metrics } from '../server/metrics.js';
import { type ReloadOutcome, Reloader } from '../server/reload.js';
import type { WsSession } from '../server/ws-session.js';
import type { DecisionLog } from '../server/decision-log.js';
import { nodeDecisionOutput, nodeSha256 } from './decision-output.js';
import { otlpDecisionOutput } from '../server/tracing/otlp-decision-output.js';
import type { OtelCallTracer } from '../server/tracing/otel-call-tracer.js';
import { readDocsAssets } from './docs-assets.js';
import { createServerWithDirectCalls, directCallRoute } from './direct-call-route.js';
import { trackHttpInFlight } from './http-in-flight.js';
import { collectProcessMetrics } from './process-metrics.js';
import { resolvePath } from './config-loader.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import { hookSandboxes } from './sandbox/hook-sandboxes.js';
import { SandboxViews } from './sandbox/sandbox-views.js';
import { createNodeLogger } from './logger.js';
import { attachWebSocket, upgradeWebSocket } from './websocket.js';

export interface StartOptions {
  config: GatewayConfig;
  /** Relative module paths and stdio cwd resolve against this. */
  baseDir: string;
  host?: string;
  port?: number;
  log?: Logger;
  /** Output buffered per socket before the gateway stops reading from it (backpressure). */
  wsHighWaterBytes?: number;
  /**
   * Where a reload (SIGHUP, POST /admin/reload) gets the new config: the same file, read again.
   * Without it reload answers that there is no config file to re-read.
   */
  loadConfig?: () => ReloadedConfig | Promise<ReloadedConfig>;
  /** The config file and its `file:` secrets: covered in every sandboxed hook's view. */
  privatePaths?: readonly string[];
}

/** What a reload reads: the config, and the files hooks must not see (config file, `file:` secrets). */
export interface ReloadedConfig {
  config: GatewayConfig;
  privatePaths?: readonly string[];
}

export interface RunningGateway {
  url: string;
  port: number;
  gateway: Gateway;
  metrics: Metrics;
  /** The backends the gateway started with; after a reload, `live.current.backends`. */
  backends: ReadonlyMap<HookRuntime, HookBackend>;
  live: LiveConfig;
  /** The decision records' writer: `flush()` resolves once the records so far are written. */
  decisions: DecisionLog;
  /** The call tracer when server.tracing is on: `forceFlush()` exports the spans so far. */
  tracer?: OtelCallTracer;
  /** Calls waiting for a person (docs/approvals.md). */
  approvals: ApprovalBroker;
  sessions: ReadonlySet<WsSession>;
  /** Re-reads the config (see StartOptions.loadConfig) and applies it; a bad one changes nothing. */
  reload(): Promise<ReloadOutcome>;
  /** Answers the calls in flight (up to a grace), then stops; `why` goes into the log lines it writes. */
  close(why?: string): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 5_000;
/** How long peers get to answer our close frame before their sockets are cut. */
const CLOSE_GRACE_MS = 1_000;

/** Starts the gateway on Node: backends, key sets, the Hono app, and `ws` for WebSockets. */
export async function startGateway(opts: StartOptions): Promise<RunningGateway> {
  const { config, baseDir } = opts;
  const log = opts.log ?? createNodeLogger(config.server.logLevel);
  // Sandbox plans come from the whole config (each hook's view hides the other tenants' files and
  // every file: secret), so a reload plans them again from the config it is about to apply: every
  // spawn from then on uses them, and a running hook whose view they change is restarted into it.
  const views = new SandboxViews(hookSandboxes(config, baseDir, opts.privatePaths ?? [], log));
  const factories: BackendFactories = {
    loadModule: (spec) => import(pathToFileURL(resolvePath(baseDir, spec)).href),
    createStdio: (hook, ctx) => {
      const b = hook.backend as Extract<HookRuntime['backend'], { type: 'stdio' }>;
      return new StdioBackend(
        {
          command: b.command,
          env: b.env,
          cwd: b.cwd ? resolvePath(baseDir, b.cwd) : baseDir,
          inheritEnv: b.inherit_env,
          maxLineBytes: config.server.maxBodyBytes,
          maxQueuedBytes: b.max_queued_bytes,
          stdinStallMs: b.stdin_stall_ms,
          stderr: {
            burstLines: b.stderr?.burst_lines,
            linesPerSecond: b.stderr?.lines_per_second,
            maxLineBytes: b.stderr?.max_line_bytes,
          },
          wrap: views.wrapFor(hook),
        },
        ctx,
      );
    },
  };
  // Redis's modules (ioredis) are loaded only by a gateway that uses Redis: ioredis subclasses String,
  // which leaves String.prototype in V8's dictionary mode for the whole process, and every string
  // method the call path uses (indexOf, charCodeAt, slice...) then costs about twice as much.
  const redis = config.server.redisUrl
    ? await Promise.all([import('./redis/redis-limiter.js'), import('./redis/approval-store-redis.js')])
    : undefined;
  const tracing = config.server.tracing;
  // OpenTelemetry's SDK and OTLP exporter are loaded only by a gateway that traces: about 4 MB of
  // heap and 50-70 ms of start-up that every other gateway (and its every full GC) would carry.
  const otlp = tracing ? await import('./otlp-tracing.js') : undefined;
  const decisionOutput =
    config.server.decisions.target.kind === 'otlp' && tracing
      ? { output: otlpDecisionOutput(tracing), close: async () => {} }
      : nodeDecisionOutput(config.server.decisions.target, baseDir, log);
  const { backends, gateway, metrics, live, limiter, decisions, tracer, approvals } = await assembleGateway(
    config,
    factories,
    log,
    {
      createLimiter: redis?.[0].redisLimiterFactory(config),
      decisionOutput: decisionOutput.output,
      decisionHash: nodeSha256,
      createApprovalStore: redis?.[1].redisApprovalStoreFactory(config),
      createTracer: tracing && otlp && (({ metrics, log }) => otlp.nodeCallTracer(tracing, metrics, log)),
    },
  );
  const stopProcessMetrics = collectProcessMetrics(metrics);
  const keepalive = new Keepalive(config.server.wsPingIntervalMs);
  const sessions = new Set<WsSession>();
  const highWater = opts.wsHighWaterBytes ?? 4 * 1024 * 1024;
  const reloader = new Reloader({ live, factories, log, metrics, sessions, plans: views });
  const loadConfig = opts.loadConfig;
  const reload = (): Promise<ReloadOutcome> => {
    if (!loadConfig) {
      log.warn({}, 'reload asked for, but this gateway was not started from a config file');
      return Promise.resolve({
        ok: false,
        issues: [
          { path: '', message: 'this gateway was not started from a config file; nothing to re-read' },
        ],
      });
    }
    if (closing) {
      return Promise.resolve({ ok: false, issues: [{ path: '', message: 'the gateway is shutting down' }] });
    }
    return reloader.reload(async () => {
      const next = await loadConfig();
      // Planned with the running server settings (server.sandbox applies at start only).
      views.stage(
        hookSandboxes({ ...next.config, server: config.server }, baseDir, next.privatePaths ?? [], log),
      );
      return next.config;
    });
  };
  const app = createApp({
    live,
    gateway,
    log,
    metrics,
    upgradeWebSocket,
    sessions,
    bufferedAmount: (raw) => (raw as WebSocket).bufferedAmount,
    wsHighWaterBytes: highWater,
    onSocketOpen: (raw, session) => keepalive.add(raw as WebSocket, session),
    reload,
    docsAssets: readDocsAssets,
    approvals,
  });

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: config.server.maxBodyBytes,
    perMessageDeflate: false,
    // Header-less clients offer "hookgate.v1, bearer.<token>"; only hookgate.v1 is ever selected.
    handleProtocols: (offered) => (offered.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });
  const takeCall = directCallRoute({ live, gateway, log, maxBodyBytes: config.server.maxBodyBytes });
  const host = opts.host ?? config.server.host;
  const listenPort = opts.port ?? config.server.port;
  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve(
        {
          fetch: app.fetch,
          hostname: host,
          port: listenPort,
          // Hook calls on the call routes are offered to the direct route first (see there).
          createServer: createServerWithDirectCalls(takeCall),
        },
        () => {
          s.off('error', reject);
          resolve(s);
        },
      );
      s.once('error', reject);
    });
  } catch (err) {
    // The backends are already running (stdio hooks are child processes): stop them, then say why.
    keepalive.stop();
    await Promise.all(live.allBackends().map((b) => b.close()));
    await limiter.close?.();
    await approvals.close();
    await tracer?.shutdown().catch(() => {});
    throw listenError(err, host, listenPort);
  }
  attachWebSocket(server as import('node:http').Server, wss, app.fetch, (err) =>
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'websocket handler failed'),
  );
  const httpCalls = trackHttpInFlight(server as import('node:http').Server);
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log.info({ url }, 'hookgate listening');

  let closing: Promise<void> | undefined;
  const close = (why?: string) =>
    (closing ??= (async () => {
      const started = Date.now();
      const wsCalls = () => [...sessions].reduce((n, s) => n + s.pending, 0);
      const before = { websockets: sessions.size, ws_calls: wsCalls(), http_calls: httpCalls.count };
      // Said first, so an operator watching a slow stop knows what it is waiting for.
      log.info(
        { why, in_flight: before, grace_ms: SHUTDOWN_GRACE_MS },
        'shutting down: answering the calls in flight',
      );
      gateway.drain();
      // A call parked for a person ends expired now rather than holding the stop for the grace.
      await approvals.close();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([
        ...[...sessions].map((s) => s.idle(SHUTDOWN_GRACE_MS)),
        httpCalls.idle(SHUTDOWN_GRACE_MS),
      ]);
      // What the grace did not see answered is cut below; counted before it goes.
      const unanswered = { ws_calls: wsCalls(), http_calls: httpCalls.count };
      const websockets = sessions.size;
      for (const s of sessions) s.close(CloseCode.GoingAway, 'server shutting down');
      // Let the close frames (and any last answers) reach the peers before cutting what is left.
      await Promise.race([
        Promise.all([...wss.clients].map((c) => new Promise((r) => c.once('close', r)))),
        new Promise((r) => setTimeout(r, CLOSE_GRACE_MS)),
      ]);
      const terminated = wss.clients.size;
      for (const c of wss.clients) c.terminate();
      wss.close();
      keepalive.stop();
      stopProcessMetrics();
      if ('closeAllConnections' in server) server.closeAllConnections();
      await reloader.settled();
      await Promise.all(live.allBackends().map((b) => b.close()));
      await limiter.close?.();
      await stopped;
      // Every call is answered by now: their records are the last to write, within the grace (a
      // sink that hangs must not hold the process).
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        // Spans too: a SIGTERM must not lose the last batch (an export failure is counted, not thrown).
        Promise.all([decisions.flush(), tracer?.shutdown().catch(() => {})]),
        new Promise((r) => {
          graceTimer = setTimeout(r, SHUTDOWN_GRACE_MS);
        }),
      ]);
      clearTimeout(graceTimer);
      await decisionOutput.close();
      log.info(
        {
          ms: Date.now() - started,
          // Of the calls in flight when the drain began (new ones were refused meanwhile).
          drained: {
            ws_calls: Math.max(0, before.ws_calls - unanswered.ws_calls),
            http_calls: Math.max(0, before.http_calls - unanswered.http_calls),
          },
          cut: { ...unanswered, websockets_not_closing: terminated },
          websockets_closed: websockets,
        },
        'shut down',
      );
    })());

  return {
    url,
    port,
    gateway,
    metrics,
    backends,
    live,
    decisions,
    tracer,
    approvals,
    sessions,
    reload,
    close,
  };
}

/** A listen failure as one line a person can act on; the cause is kept for --debug. */
function listenError(err: unknown, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new HookgateError(
      'PORT_IN_USE',
      `${where} is already in use (another hookgate?); choose another --port or PORT`,
      { cause: err },
    );
  }
  if (code === 'EACCES') {
    return new HookgateError(
      'LISTEN_DENIED',
      `not allowed to listen on ${where} (ports below 1024 need privileges)`,
      { cause: err },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new HookgateError('LISTEN_FAILED', `cannot listen on ${where}: no such local address`, {
      cause: err,
    });
  }
  return new HookgateError(
    'LISTEN_FAILED',
    `cannot listen on ${where}: ${err instanceof Error ? err.message : String(err)}`,
    { cause: err },
  );
}

/**
 * Keepalive for every socket with one timer: a peer that has not answered the previous ping by the
 * next sweep is terminated. One interval and one shared pong listener, not a timer and closures per
 * connection, because idle connections are what a gateway holds most of.
 */
class Keepalive {
  private readonly sessions = new Map<WebSocket, WsSession>();
  private readonly answered = new Set<WebSocket>();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly onPong: (this: WebSocket) => void;

  constructor(intervalMs: number) {
    const answered = this.answered;
    this.onPong = function onPong(this: WebSocket) {
      answered.add(this);
    };
    this.timer = setInterval(() => this.sweep(), intervalMs);
    this.timer.unref();
  }

  add(ws: WebSocket, session: WsSession): () => void {
    this.sessions.set(ws, session);
    this.answered.add(ws);
    ws.on('pong', this.onPong);
    return () => this.remove(ws);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private remove(ws: WebSocket): void {
    this.sessions.delete(ws);
    this.answered.delete(ws);
  }

  private sweep(): void {
    for (const [ws, session] of this.sessions) {
      if (!this.answered.has(ws)) {
        this.remove(ws);
        session.onClose();
        ws.terminate();
        continue;
      }
      this.answered.delete(ws);
      ws.ping();
    }
  }
}
