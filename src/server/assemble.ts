import { ApprovalBroker } from '../approvals/broker.js';
import { MemoryApprovalStore } from '../approvals/memory-store.js';
import type { ApprovalStore } from '../approvals/store.js';
import { sendApprovalWebhook } from '../approvals/webhook.js';
import { TenantVerifier } from '../auth/verifier.js';
import type { HookBackend } from '../backends/types.js';
import type { GatewayConfig, HookRuntime } from '../config/runtime.js';
import { LimitGate } from '../limits/gate.js';
import { LocalLimiter } from '../limits/local.js';
import type { CallLimiter } from '../limits/types.js';
import { type BackendFactories, buildBackends } from './backends.js';
import { DecisionLog, type DecisionOutput } from './decision-log.js';
import type { Sha256 } from './decision-record.js';
import { Gateway } from './gateway.js';
import { LiveConfig } from './live-config.js';
import type { Logger } from './logger.js';
import { Metrics } from './metrics.js';
import type { OtelCallTracer } from './tracing/otel-call-tracer.js';

export interface AssembledGateway {
  verifiers: Map<string, TenantVerifier>;
  backends: Map<HookRuntime, HookBackend>;
  gateway: Gateway;
  metrics: Metrics;
  /** The limiter the gateway consults for hooks with limits; close it last. */
  limiter: CallLimiter;
  /** The snapshot the app and the gateway read per request; a reload replaces it. */
  live: LiveConfig;
  /** The decision records' writer (server.decisions); flush it before exiting. */
  decisions: DecisionLog;
  /** Spans per call (server.tracing), when the runtime made a tracer; shut it down before exiting. */
  tracer?: OtelCallTracer;
  /** Calls waiting for a person; close it before the backends (its parked calls end expired). */
  approvals: ApprovalBroker;
}

export interface AssembleOptions {
  /** A limiter shared across replicas (Redis, a Durable Object); default: in-process. */
  createLimiter?: (deps: { metrics: Metrics; log: Logger }) => CallLimiter;
  /** Where decision records go when server.decisions is on (the runtime opens its target). */
  decisionOutput?: DecisionOutput;
  /** The records' SHA-256, when the runtime has a faster one than Web Crypto's (Node). */
  decisionHash?: Sha256;
  /** The call tracer (server.tracing on), built with the gateway's metrics and log. */
  createTracer?: (deps: { metrics: Metrics; log: Logger }) => OtelCallTracer;
  /** Where approval requests live when replicas share them (Redis); default: this process. */
  createApprovalStore?: (deps: { log: Logger }) => ApprovalStore;
}

/**
 * What every runtime builds from a validated config: one key set per tenant (keys imported once),
 * one started backend per hook, the gateway and its metrics. Node and Workers differ only in the
 * backend factories they pass and in how they serve the app.
 */
export async function assembleGateway(
  config: GatewayConfig,
  factories: BackendFactories,
  log: Logger,
  opts: AssembleOptions = {},
): Promise<AssembledGateway> {
  const verifiers = new Map<string, TenantVerifier>();
  for (const tenant of config.tenants.values()) {
    verifiers.set(tenant.name, await TenantVerifier.create(tenant, config.server.tokenCacheSize));
  }
  const metrics = new Metrics();
  const backends = await buildBackends(config, factories, log, metrics);
  // A hook that cannot start does not stop the gateway: its calls get the failure answer and
  // /readyz says which one is down, while the backend keeps retrying.
  await Promise.all(
    [...backends].map(([hook, b]) =>
      b
        .start()
        .catch((err: unknown) =>
          log.error({ tenant: hook.tenant, hook: hook.name, err: String(err) }, 'backend did not start'),
        ),
    ),
  );
  // Always there, so a reload that adds limits finds them enforced; hooks without limits never
  // consult it (one field check per call).
  const limiter = opts.createLimiter?.({ metrics, log }) ?? new LocalLimiter();
  const limits = new LimitGate(limiter, metrics, log);
  // Their in-flight gauges read 0 from the start rather than no data until a first call.
  for (const tenant of config.tenants.values()) {
    for (const hook of tenant.hooks.values()) if (hook.limits !== undefined) limits.track(hook);
  }
  const live = new LiveConfig({ config, verifiers, backends });
  const decisions = new DecisionLog(config.server.decisions, opts.decisionOutput, metrics, opts.decisionHash);
  const tracer = opts.createTracer?.({ metrics, log });
  // The tenant's webhook is read per request, so a reload that changes it applies to the next one.
  const approvals = new ApprovalBroker({
    store: opts.createApprovalStore?.({ log }) ?? new MemoryApprovalStore(),
    log,
    onCreated: (request) =>
      void sendApprovalWebhook(live.current.config.tenants.get(request.binding.tenant)?.approvals, request, {
        log,
      }),
  });
  const gateway = new Gateway({ live, log, metrics, limits, decisions, tracer, approvals });
  if (!config.server.adminToken) {
    log.warn(
      {},
      'admin routes disabled (/metrics, /readyz details, /admin/reload): set server.admin_token to enable them',
    );
  }
  return { verifiers, backends, gateway, metrics, limiter, live, decisions, tracer, approvals };
}
