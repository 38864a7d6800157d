import type { HookRuntime } from '../config/runtime.js';
import { LogRateLimit } from '../lib/log-rate-limit.js';
import { LocalLimiter } from '../limits/local.js';
import { type LimitAnswer, type LimitRequest, TenantLimitState } from '../limits/tenant-state.js';
import { type Admission, type CallLimiter, type Lease, Refusal } from '../limits/types.js';
import type { AssembleOptions } from '../server/assemble.js';
import { randomUuid } from '../lib/uuid.js';

/** The Durable Object namespace binding (wrangler.toml) that shares limits across isolates. */
export const LIMITER_BINDING = 'HOOKGATE_LIMITER';
/** How long a call waits for its tenant's limiter before it is decided in this isolate. */
const DECIDE_TIMEOUT_MS = 1_000;
/** An in-flight entry outlives its call's deadline by this much before the object forgets it. */
const LEASE_SLACK_MS = 1_000;
const ORIGIN = 'https://limiter.hookgate';

/**
 * One tenant's limits for every isolate of the gateway Worker: a Durable Object per tenant (named
 * by the tenant), so its decisions are serial and global. State lives in memory: an evicted object
 * starts afresh, which at worst lets one more burst through; leases expire at their deadline.
 * A plain class speaking fetch, so the Worker's code imports nothing from `cloudflare:*`.
 */
export class TenantLimiter {
  private readonly state = new TenantLimitState();

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    try {
      if (path === '/decide') return Response.json(this.state.decide((await request.json()) as LimitRequest));
      if (path === '/release') {
        const { hook, lease } = (await request.json()) as { hook: string; lease: string };
        this.state.release(hook, lease);
        return new Response(null, { status: 204 });
      }
    } catch {
      return Response.json({ error: 'bad request' }, { status: 400 });
    }
    return new Response(null, { status: 404 });
  }
}

class DurableLease implements Lease {
  constructor(
    private readonly stub: DurableObjectStub,
    private readonly hook: string,
    private readonly lease: string,
  ) {}

  release(): void {
    // Not awaited: a release the runtime cancels (the response already went out) expires instead.
    this.stub
      .fetch(`${ORIGIN}/release`, {
        method: 'POST',
        body: JSON.stringify({ hook: this.hook, lease: this.lease }),
      })
      .catch(() => {});
  }
}

interface Log {
  warn(obj: object, msg?: string): void;
}

/**
 * The gateway's CallLimiter on Workers: asks the tenant's Durable Object; when it does not answer
 * within DECIDE_TIMEOUT_MS (or fails), decides in this isolate instead (limits then hold per
 * isolate), counted in hookgate_limiter_fallbacks_total and logged at most once per 10 s.
 */
export class DurableLimiter implements CallLimiter {
  private readonly ids = new Map<string, DurableObjectId>();
  private readonly fallback = new LocalLimiter();
  private readonly warnings = LogRateLimit.every(10_000);

  constructor(
    private readonly namespace: DurableObjectNamespace,
    private readonly fellBack: () => void,
    private readonly log: Log,
  ) {}

  async acquire(hook: HookRuntime, maxCallMs: number): Promise<Admission> {
    const lease = randomUuid();
    const stub = this.stubOf(hook.tenant);
    try {
      const answer = await this.decide(stub, request(hook, lease, maxCallMs + LEASE_SLACK_MS));
      return answer.ok
        ? new DurableLease(stub, hook.name, lease)
        : new Refusal(answer.limit, answer.retryAfterMs);
    } catch (err) {
      this.failed(err);
      return this.fallback.acquire(hook, maxCallMs);
    }
  }

  async admitEvent(hook: HookRuntime): Promise<Refusal | null> {
    try {
      const answer = await this.decide(this.stubOf(hook.tenant), request(hook, undefined, 0));
      return answer.ok ? null : new Refusal(answer.limit, answer.retryAfterMs);
    } catch (err) {
      this.failed(err);
      return this.fallback.admitEvent(hook);
    }
  }

  private async decide(stub: DurableObjectStub, req: LimitRequest): Promise<LimitAnswer> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${DECIDE_TIMEOUT_MS} ms`)),
        DECIDE_TIMEOUT_MS,
      );
    });
    try {
      const res = await Promise.race([
        stub.fetch(`${ORIGIN}/decide`, { method: 'POST', body: JSON.stringify(req) }),
        timeout,
      ]);
      if (!res.ok) throw new Error(`limiter answered ${res.status}`);
      return (await res.json()) as LimitAnswer;
    } finally {
      clearTimeout(timer);
    }
  }

  private failed(err: unknown): void {
    this.fellBack();
    const skipped = this.warnings.admit();
    if (skipped < 0) return;
    this.log.warn(
      { err: err instanceof Error ? err.message : String(err), unlogged_failures: skipped },
      'tenant limiter unavailable; limiting in this isolate',
    );
  }

  /**
   * A stub of the calling request's own: a stub kept from an earlier request fails in this one
   * ("Cannot perform I/O on behalf of a different request"), which sent every call after an
   * isolate's first to the fallback. The id is the same for all and is kept.
   */
  private stubOf(tenant: string): DurableObjectStub {
    let id = this.ids.get(tenant);
    if (!id) {
      id = this.namespace.idFromName(tenant);
      this.ids.set(tenant, id);
    }
    return this.namespace.get(id);
  }
}

function request(hook: HookRuntime, lease: string | undefined, ttlMs: number): LimitRequest {
  return { hook: hook.name, hookLimits: hook.limits?.hook, tenantLimits: hook.limits?.tenant, lease, ttlMs };
}

/** With the HOOKGATE_LIMITER binding, limits shared by all isolates; without, per isolate. */
export function durableLimiterFactory(env: Record<string, unknown>): AssembleOptions['createLimiter'] {
  const namespace = env[LIMITER_BINDING] as DurableObjectNamespace | undefined;
  if (!namespace || typeof namespace.idFromName !== 'function') return undefined;
  return ({ metrics, log }) =>
    new DurableLimiter(namespace, metrics.counter('hookgate_limiter_fallbacks_total', {}), log);
}
