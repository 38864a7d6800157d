import type { HookBackend } from '../backends/types.js';
import { compileConfig, type SecretResolver } from '../config/compile.js';
import { type ConfigIssue, ConfigError } from '../config/errors.js';
import type { GatewayConfig, HookRuntime } from '../config/runtime.js';
import { createApp } from '../server/app.js';
import { assembleGateway } from '../server/assemble.js';
import type { DecisionLog } from '../server/decision-log.js';
import type { Logger } from '../server/logger.js';
import { APPROVALS_BINDING, durableApprovalStoreFactory } from './approval-store-durable.js';
import { loadDocsAssets } from './docs-assets.js';
import { durableLimiterFactory } from './limiter.js';
import { createWorkerLogger, type LogSink } from './logger.js';
import { type ModuleRegistry, registryLoader } from './modules.js';
import { upgradeWebSocket } from './websocket.js';
import { workerCallTracer } from './tracing.js';
import { otlpDecisionOutput } from '../server/tracing/otlp-decision-output.js';
import type { OtelCallTracer } from '../server/tracing/otel-call-tracer.js';

/** The Worker's bindings: the config (a JSON string secret/var, or a [vars] table) and its secrets. */
export interface WorkerEnv {
  HOOKGATE_CONFIG?: unknown;
  [binding: string]: unknown;
}

export interface WorkerOptions {
  /** The `module` backends this build can host (see ./modules.ts). */
  modules: ModuleRegistry;
  /** Where log lines go (default console.log). */
  sink?: LogSink;
  /** The fetch the http backends use (default the global one). */
  fetch?: typeof fetch;
}

export const CONFIG_BINDING = 'HOOKGATE_CONFIG';

/** How long after a response the Worker stays alive to deliver runtime events to http hooks. */
const EVENT_DRAIN_MS = 25_000;

interface Built {
  app: ReturnType<typeof createApp>;
  backends: ReadonlyMap<HookRuntime, HookBackend>;
  decisions: DecisionLog;
  tracer?: OtelCallTracer;
}

interface Slot {
  env: WorkerEnv;
  signature: string;
  built: Promise<Built>;
}

/**
 * The Workers module handler: builds the gateway once per isolate, lazily on the first request,
 * from `env.HOOKGATE_CONFIG`, and serves every request (HTTP and WebSocket) through the same Hono
 * app as the Node server. A bad config answers 500 `config_invalid` naming the paths at fault.
 */
export function createWorker(options: WorkerOptions) {
  let slot: Slot | undefined;
  const sink = options.sink ?? ((line: string) => console.log(line));

  const get = (env: WorkerEnv): Promise<Built> => {
    // Bindings do not change within an isolate; the signature only matters when a caller (a test)
    // hands the same handler different bindings.
    if (slot && (slot.env === env || slot.signature === signature(env))) return slot.built;
    const current: Slot = { env, signature: signature(env), built: build(env, options, sink) };
    slot = current;
    current.built.catch((err: unknown) => {
      // A config error stays until the bindings change; anything else is retried next request.
      if (!(err instanceof ConfigError) && slot === current) slot = undefined;
    });
    return current.built;
  };

  return {
    async fetch(request: Request, env: WorkerEnv, ctx?: ExecutionContext): Promise<Response> {
      let built: Built;
      try {
        built = await get(env ?? {});
      } catch (err) {
        if (err instanceof ConfigError) {
          return Response.json(
            { error: { code: 'config_invalid', message: issuePaths(err.issues).join(', ') } },
            { status: 500 },
          );
        }
        return Response.json(
          { error: { code: 'internal', message: 'gateway failed to start' } },
          { status: 500 },
        );
      }
      const response = await built.app.fetch(request, env, ctx);
      if (ctx && pendingEvents(built.backends) > 0)
        ctx.waitUntil(drainEvents(built.backends, EVENT_DRAIN_MS));
      // The records are built and logged after the answer; the runtime must not cut that short.
      if (ctx && built.decisions.pending > 0) ctx.waitUntil(built.decisions.flush());
      // This request's spans (server.tracing): exported now, since no timer runs after the answer.
      if (ctx && built.tracer) ctx.waitUntil(built.tracer.forceFlush());
      return response;
    },
  } satisfies ExportedHandler<WorkerEnv>;
}

async function build(env: WorkerEnv, options: WorkerOptions, sink: LogSink): Promise<Built> {
  const bootLog = createWorkerLogger('info', sink);
  let config: GatewayConfig;
  try {
    config = compileConfig(readConfigDocument(env), workerSecretResolver(env));
    if (config.server.decisions.target.kind === 'file') {
      throw new ConfigError([
        { path: 'server.decisions.to', message: 'a Worker has no files: use stdout (the console) or off' },
      ]);
    }
  } catch (err) {
    throw logFailure(bootLog, err);
  }
  const log = createWorkerLogger(config.server.logLevel, sink);
  const createApprovalStore = durableApprovalStoreFactory(env);
  if (!createApprovalStore) {
    log.warn(
      { binding: APPROVALS_BINDING },
      'approvals are per isolate: a call parked here can be decided only through this isolate; bind the TenantApprovals Durable Object to share them (docs/workers.md)',
    );
  }
  try {
    const tracing = config.server.tracing;
    const { backends, gateway, metrics, live, decisions, approvals, tracer } = await assembleGateway(
      config,
      { loadModule: registryLoader(options.modules), fetch: options.fetch },
      log,
      {
        createLimiter: durableLimiterFactory(env),
        createApprovalStore,
        createTracer: tracing && ((deps) => workerCallTracer(tracing, options.fetch, deps.metrics, deps.log)),
        // `stdout` on a Worker is the console, as the log lines: one JSON line per record.
        decisionOutput:
          config.server.decisions.target.kind === 'otlp' && tracing
            ? otlpDecisionOutput(tracing, options.fetch)
            : (lines) => {
                for (const line of lines) sink(line);
              },
      },
    );
    // No reload here: a Worker gets a new config by redeploy (POST /admin/reload answers 501).
    const app = createApp({
      live,
      gateway,
      log,
      metrics,
      upgradeWebSocket,
      docsAssets: loadDocsAssets,
      approvals,
    });
    log.info(
      {
        tenants: [...config.tenants.keys()],
        hooks: [...backends.keys()].map((h) => `${h.tenant}/${h.name}:${h.backend.type}`),
      },
      'hookgate worker ready',
    );
    return { app, backends, decisions, tracer };
  } catch (err) {
    throw logFailure(log, err);
  }
}

/** `HOOKGATE_CONFIG` as a document: a JSON string (a secret or var) or an object ([vars] table). */
export function readConfigDocument(env: WorkerEnv): unknown {
  const raw = env[CONFIG_BINDING];
  if (raw === undefined || raw === null || raw === '') {
    throw new ConfigError([
      { path: CONFIG_BINDING, message: 'required: set it with `wrangler secret put HOOKGATE_CONFIG`' },
    ]);
  }
  if (typeof raw === 'object') return raw;
  if (typeof raw !== 'string') {
    throw new ConfigError([{ path: CONFIG_BINDING, message: 'must be a JSON string or an object' }]);
  }
  try {
    return JSON.parse(raw);
  } catch {
    // JSON.parse's message quotes the text around the error, which may be a secret: say less.
    throw new ConfigError([{ path: CONFIG_BINDING, message: 'not valid JSON' }]);
  }
}

/**
 * `env:NAME` → the binding NAME (a secret or a var), `file:PATH` → refused (a Worker has no files),
 * anything else is the literal value.
 */
export function workerSecretResolver(env: WorkerEnv): SecretResolver {
  return (ref) => {
    if (ref.startsWith('env:')) {
      const name = ref.slice(4);
      const value = Object.hasOwn(env, name) ? env[name] : undefined;
      if (typeof value === 'string' && value !== '') return value;
      if (isPlainObject(value)) return JSON.stringify(value); // e.g. a JWK as a [vars] table
      if (value === undefined || value === '') {
        throw new Error(
          `binding ${name} is not set (wrangler secret put ${name}, or [vars] in wrangler.toml)`,
        );
      }
      throw new Error(`binding ${name} is not a text secret or variable`);
    }
    if (ref.startsWith('file:')) {
      throw new Error('file: references are not available on Workers; use env:NAME and a secret binding');
    }
    return ref;
  };
}

/** Logs what failed (paths and our own messages, never values) and returns a ConfigError if it is one. */
function logFailure(log: Logger, err: unknown): unknown {
  const config = asConfigError(err);
  if (config) {
    log.error(
      { code: 'config_invalid', paths: issuePaths(config.issues), issues: config.issues },
      'invalid gateway config',
    );
    return config;
  }
  log.error({ err: err instanceof Error ? err.message : String(err) }, 'gateway failed to start');
  return err;
}

/** Key import failures come as plain errors that start with their config path. */
function asConfigError(err: unknown): ConfigError | undefined {
  if (err instanceof ConfigError) return err;
  const m = err instanceof Error ? /^(tenants\.[^\s:]+): ([\s\S]*)$/.exec(err.message) : null;
  return m ? new ConfigError([{ path: m[1], message: m[2] }]) : undefined;
}

function issuePaths(issues: readonly ConfigIssue[]): string[] {
  return [...new Set(issues.map((i) => i.path || '(root)'))];
}

function signature(env: WorkerEnv): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(env ?? {})) {
    if (typeof v === 'string') parts.push(`${k}=${v}`);
    else if (isPlainObject(v)) parts.push(`${k}=${JSON.stringify(v)}`);
  }
  return parts.sort().join('\n');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

function pendingEvents(backends: ReadonlyMap<HookRuntime, HookBackend>): number {
  let n = 0;
  for (const b of backends.values()) {
    const inFlight = (b as { eventsInFlight?: unknown }).eventsInFlight;
    if (typeof inFlight === 'number') n += inFlight;
  }
  return n;
}

/**
 * Runtime events go to http hooks after the 202 is sent; a Worker must say it is still working or
 * the runtime may cancel the delivery. Waits (bounded) until no event is in flight.
 */
async function drainEvents(backends: ReadonlyMap<HookRuntime, HookBackend>, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (pendingEvents(backends) > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
