import type { LimitSpec } from '../config/runtime.js';
import { gcraNext, gcraWait, IN_FLIGHT_RETRY_MS, type LimitName } from './types.js';

/** One decision asked of a tenant's limiter (a Durable Object): plain data, sent as JSON. */
export interface LimitRequest {
  hook: string;
  hookLimits?: LimitSpec;
  tenantLimits?: LimitSpec;
  /** The call's lease id; absent for an event (rate only). */
  lease?: string;
  /** How long the lease counts as in flight if it is never released. */
  ttlMs: number;
}

export type LimitAnswer = { ok: true } | { ok: false; limit: LimitName; retryAfterMs: number };

class ScopeState {
  tat = 0;
  /** Lease id → when it stops counting (its call is surely over by then). */
  readonly leases = new Map<string, number>();

  live(now: number): number {
    for (const [id, until] of this.leases) if (until <= now) this.leases.delete(id);
    return this.leases.size;
  }
}

/**
 * All of one tenant's limits in one place, for a limiter that serves many gateway instances (a
 * Durable Object per tenant): the same decisions as the Redis script. The limits come with each
 * request, so a config change needs no state migration; in-flight leases expire at their deadline
 * so an instance that never releases (evicted mid-call) does not hold them forever.
 */
export class TenantLimitState {
  private readonly tenant = new ScopeState();
  private readonly hooks = new Map<string, ScopeState>();

  constructor(private readonly now: () => number = Date.now) {}

  decide(req: LimitRequest): LimitAnswer {
    const now = this.now();
    const h = this.scopeOf(req.hook);
    const t = this.tenant;
    const hi = interval(req.hookLimits);
    const ti = interval(req.tenantLimits);
    if (hi > 0) {
      const wait = gcraWait(h.tat, now, hi, req.hookLimits?.burst ?? 1);
      if (wait > 0) return { ok: false, limit: 'hook_rate', retryAfterMs: wait };
    }
    if (ti > 0) {
      const wait = gcraWait(t.tat, now, ti, req.tenantLimits?.burst ?? 1);
      if (wait > 0) return { ok: false, limit: 'tenant_rate', retryAfterMs: wait };
    }
    const hm = req.hookLimits?.maxInFlight;
    const tm = req.tenantLimits?.maxInFlight;
    if (req.lease !== undefined) {
      if (hm !== undefined && h.live(now) >= hm)
        return { ok: false, limit: 'hook_in_flight', retryAfterMs: IN_FLIGHT_RETRY_MS };
      if (tm !== undefined && t.live(now) >= tm)
        return { ok: false, limit: 'tenant_in_flight', retryAfterMs: IN_FLIGHT_RETRY_MS };
      if (hm !== undefined) h.leases.set(req.lease, now + req.ttlMs);
      if (tm !== undefined) t.leases.set(req.lease, now + req.ttlMs);
    }
    if (hi > 0) h.tat = gcraNext(h.tat, now, hi);
    if (ti > 0) t.tat = gcraNext(t.tat, now, ti);
    return { ok: true };
  }

  release(hook: string, lease: string): void {
    this.hooks.get(hook)?.leases.delete(lease);
    this.tenant.leases.delete(lease);
  }

  private scopeOf(hook: string): ScopeState {
    let s = this.hooks.get(hook);
    if (!s) {
      s = new ScopeState();
      this.hooks.set(hook, s);
    }
    return s;
  }
}

function interval(spec: LimitSpec | undefined): number {
  return spec?.callsPerSecond ? 1000 / spec.callsPerSecond : 0;
}
