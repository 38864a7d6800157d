import type { HookRuntime } from '../config/runtime.js';
import { LogRateLimit } from '../lib/log-rate-limit.js';
import type { Logger } from '../server/logger.js';
import type { Metrics } from '../server/metrics.js';
import { type Admission, type CallLimiter, type Lease, type LimitName, Refusal } from './types.js';

/** How often a hook under a flood of refusals gets a log line. */
const LOG_EVERY_MS = 10_000;

/** One hook's counters, rendered once. */
class HookStats {
  readonly refused: Record<LimitName, () => void>;
  readonly inFlight: (by?: number) => void;
  readonly log: LogRateLimit;

  constructor(hook: HookRuntime, metrics: Metrics, now: () => number) {
    const counter = (limit: LimitName) =>
      metrics.counter('hookgate_rate_limited_total', { tenant: hook.tenant, hook: hook.name, limit });
    this.refused = {
      hook_rate: counter('hook_rate'),
      tenant_rate: counter('tenant_rate'),
      hook_in_flight: counter('hook_in_flight'),
      tenant_in_flight: counter('tenant_in_flight'),
    };
    this.inFlight = metrics.counter('hookgate_calls_in_flight', { tenant: hook.tenant, hook: hook.name });
    this.log = LogRateLimit.every(LOG_EVERY_MS, now);
  }
}

/**
 * The gateway's side of the limits, whatever the limiter: counts every refusal in
 * hookgate_rate_limited_total, logs them at a bounded rate, and keeps the in-flight gauge.
 */
export class LimitGate {
  private readonly stats = new Map<HookRuntime, HookStats>();

  constructor(
    readonly limiter: CallLimiter,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  acquire(hook: HookRuntime, maxCallMs: number): Admission | Promise<Admission> {
    const admission = this.limiter.acquire(hook, maxCallMs);
    if (admission instanceof Promise) return admission.then((a) => this.noted(hook, a, 'call'));
    return this.noted(hook, admission, 'call');
  }

  /** Resolves a limited hook's series now, so its in-flight gauge shows 0 before its first call. */
  track(hook: HookRuntime): void {
    this.statsOf(hook);
  }

  /** Ends an admitted call. */
  release(hook: HookRuntime, lease: Lease): void {
    lease.release();
    this.statsOf(hook).inFlight(-1);
  }

  /** Whether an event may be delivered; a refused one is counted and dropped. */
  admitEvent(hook: HookRuntime): boolean | Promise<boolean> {
    const refusal = this.limiter.admitEvent(hook);
    if (refusal instanceof Promise) return refusal.then((r) => this.eventNoted(hook, r));
    return this.eventNoted(hook, refusal);
  }

  private eventNoted(hook: HookRuntime, refusal: Refusal | null): boolean {
    if (!refusal) return true;
    this.refused(hook, refusal, 'event');
    return false;
  }

  private noted(hook: HookRuntime, admission: Admission, kind: 'call'): Admission {
    if (admission instanceof Refusal) this.refused(hook, admission, kind);
    else this.statsOf(hook).inFlight(1);
    return admission;
  }

  private refused(hook: HookRuntime, refusal: Refusal, kind: 'call' | 'event'): void {
    const stats = this.statsOf(hook);
    stats.refused[refusal.limit]();
    const skipped = stats.log.admit();
    if (skipped < 0) return;
    this.log.warn(
      {
        tenant: hook.tenant,
        hook: hook.name,
        limit: refusal.limit,
        kind,
        retry_after_ms: refusal.retryAfterMs,
        // Refusals of this hook not logged since its previous line (see hookgate_rate_limited_total).
        unlogged_refusals: skipped,
      },
      'refused by a limit',
    );
  }

  private statsOf(hook: HookRuntime): HookStats {
    let s = this.stats.get(hook);
    if (!s) {
      s = new HookStats(hook, this.metrics, this.now);
      this.stats.set(hook, s);
    }
    return s;
  }
}
