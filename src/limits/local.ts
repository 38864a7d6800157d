import type { HookRuntime, LimitSpec } from '../config/runtime.js';
import {
  type Admission,
  type CallLimiter,
  gcraNext,
  gcraWait,
  IN_FLIGHT_RETRY_MS,
  type LimitName,
  Refusal,
} from './types.js';

/** The state of one limited scope (a tenant, or one hook). */
class Scope {
  /** GCRA theoretical arrival time, ms. */
  tat = 0;
  inFlight = 0;
  /** 1000 / calls_per_second; 0 without a rate limit. */
  readonly intervalMs: number;
  readonly burst: number;
  readonly maxInFlight: number;

  constructor(spec: LimitSpec | undefined) {
    this.intervalMs = spec?.callsPerSecond ? 1000 / spec.callsPerSecond : 0;
    this.burst = spec?.burst ?? 1;
    this.maxInFlight = spec?.maxInFlight ?? Number.POSITIVE_INFINITY;
  }
}

/**
 * One hook's scopes, and the lease its admitted calls get. The same object is every call's lease:
 * admitting a call allocates nothing.
 */
class HookSlot {
  constructor(
    readonly hook: Scope,
    readonly tenant: Scope,
  ) {}

  release(): void {
    this.hook.inFlight--;
    this.tenant.inFlight--;
  }
}

/**
 * Limits in this process only: GCRA for the rate (a timestamp per scope, no timer), a counter for
 * calls in flight. Tenant scopes are shared by all of a tenant's hooks. The clock is injectable so
 * tests can step time.
 */
export class LocalLimiter implements CallLimiter {
  private readonly slots = new Map<HookRuntime, HookSlot>();
  private readonly tenants = new Map<string, Scope>();

  constructor(private readonly now: () => number = Date.now) {}

  acquire(hook: HookRuntime, _maxCallMs?: number): Admission {
    const slot = this.slotOf(hook);
    const now = this.now();
    const h = slot.hook;
    const t = slot.tenant;
    // Every limit is checked before any is charged: a refused call costs no scope a token.
    if (h.intervalMs > 0) {
      const wait = gcraWait(h.tat, now, h.intervalMs, h.burst);
      if (wait > 0) return new Refusal('hook_rate', wait);
    }
    if (t.intervalMs > 0) {
      const wait = gcraWait(t.tat, now, t.intervalMs, t.burst);
      if (wait > 0) return new Refusal('tenant_rate', wait);
    }
    if (h.inFlight >= h.maxInFlight) return new Refusal('hook_in_flight', IN_FLIGHT_RETRY_MS);
    if (t.inFlight >= t.maxInFlight) return new Refusal('tenant_in_flight', IN_FLIGHT_RETRY_MS);
    if (h.intervalMs > 0) h.tat = gcraNext(h.tat, now, h.intervalMs);
    if (t.intervalMs > 0) t.tat = gcraNext(t.tat, now, t.intervalMs);
    h.inFlight++;
    t.inFlight++;
    return slot;
  }

  admitEvent(hook: HookRuntime): Refusal | null {
    const slot = this.slotOf(hook);
    const now = this.now();
    const refusal = rateRefusal(slot.hook, now, 'hook_rate') ?? rateRefusal(slot.tenant, now, 'tenant_rate');
    if (refusal) return refusal;
    if (slot.hook.intervalMs > 0) slot.hook.tat = gcraNext(slot.hook.tat, now, slot.hook.intervalMs);
    if (slot.tenant.intervalMs > 0) slot.tenant.tat = gcraNext(slot.tenant.tat, now, slot.tenant.intervalMs);
    return null;
  }

  /** Calls in flight in this process for a hook and its tenant (for tests and gauges). */
  inFlight(hook: HookRuntime): { hook: number; tenant: number } {
    const slot = this.slotOf(hook);
    return { hook: slot.hook.inFlight, tenant: slot.tenant.inFlight };
  }

  private slotOf(hook: HookRuntime): HookSlot {
    let slot = this.slots.get(hook);
    if (!slot) {
      let tenant = this.tenants.get(hook.tenant);
      if (!tenant) {
        tenant = new Scope(hook.limits?.tenant);
        this.tenants.set(hook.tenant, tenant);
      }
      slot = new HookSlot(new Scope(hook.limits?.hook), tenant);
      this.slots.set(hook, slot);
    }
    return slot;
  }
}

function rateRefusal(scope: Scope, now: number, limit: LimitName): Refusal | null {
  if (scope.intervalMs <= 0) return null;
  const wait = gcraWait(scope.tat, now, scope.intervalMs, scope.burst);
  return wait > 0 ? new Refusal(limit, wait) : null;
}
