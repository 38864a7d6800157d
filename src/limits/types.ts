import type { HookRuntime } from '../config/runtime.js';

/** Which limit refused a call: the label of hookgate_rate_limited_total. */
export type LimitName = 'hook_rate' | 'tenant_rate' | 'hook_in_flight' | 'tenant_in_flight';

/** How long a caller refused by an in-flight limit is told to wait: no call's end is known. */
export const IN_FLIGHT_RETRY_MS = 1_000;

/** A call (or event) refused by a limit, and when trying again may succeed. Made only on refusal. */
export class Refusal {
  readonly retryAfterMs: number;
  constructor(
    readonly limit: LimitName,
    retryAfterMs: number,
  ) {
    // Whole milliseconds, never 0: "now" would invite an immediate retry that fails again.
    this.retryAfterMs = Math.max(1, Math.ceil(retryAfterMs));
  }

  /** For HTTP Retry-After: whole seconds, at least 1. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.retryAfterMs / 1000));
  }
}

/** An admitted call: counts as in flight until released (exactly once). */
export interface Lease {
  release(): void;
}

export type Admission = Lease | Refusal;

/**
 * Decides whether a call to a hook may go now, under the hook's limits and its tenant's. A limiter
 * that keeps its state in this process answers synchronously (the hot path then has no await);
 * one that asks another store answers with a promise that never rejects and settles in bounded time.
 */
export interface CallLimiter {
  /**
   * Admits a call or refuses it. `maxCallMs` bounds how long the call can take: a shared limiter
   * forgets an in-flight entry after it, so a replica that dies mid-call does not hold it forever.
   * Only called for hooks with `limits`.
   */
  acquire(hook: HookRuntime, maxCallMs: number): Admission | Promise<Admission>;
  /** Rate limits only (an event is not in flight): null when admitted. */
  admitEvent(hook: HookRuntime): Refusal | null | Promise<Refusal | null>;
  close?(): Promise<void>;
}

/** GCRA: ms to wait before a call may go (≤ 0: now) given the stored theoretical arrival time. */
export function gcraWait(tat: number, now: number, intervalMs: number, burst: number): number {
  return Math.max(tat, now) + intervalMs - burst * intervalMs - now;
}

/** GCRA: the theoretical arrival time after admitting one call. */
export function gcraNext(tat: number, now: number, intervalMs: number): number {
  return Math.max(tat, now) + intervalMs;
}
