/**
 * A token bucket for log lines: `burst` lines at once, refilled at `perSecond`. What it refuses is
 * counted, so the caller can say how much it dropped instead of dropping silently. One class for
 * every bounded log in the gateway: a hook's stderr (a burst, then a rate) and recurring warnings
 * (`LogRateLimit.every(ms)`: the first at once, then one per interval carrying the skipped count).
 */
export interface LogRateLimitOptions {
  burst: number;
  perSecond: number;
  now?: () => number;
}

export class LogRateLimit {
  private tokens: number;
  private last: number;
  private droppedSinceReport = 0;
  private readonly now: () => number;

  constructor(private readonly opts: LogRateLimitOptions) {
    if (!(opts.burst >= 1 && opts.perSecond >= 0)) {
      throw new RangeError('LogRateLimit needs burst >= 1 and perSecond >= 0');
    }
    this.now = opts.now ?? Date.now;
    this.tokens = opts.burst;
    this.last = this.now();
  }

  /** One line per `intervalMs`, the first at once. */
  static every(intervalMs: number, now?: () => number): LogRateLimit {
    return new LogRateLimit({ burst: 1, perSecond: 1000 / intervalMs, now });
  }

  /**
   * For a line that carries the count of those not logged: -1 when this one is dropped (and
   * counted); otherwise how many were dropped since the last line that went out.
   */
  admit(): number {
    return this.take() ? this.takeDropped() : -1;
  }

  /** True if this line may be logged; false if it is dropped (and counted). */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.opts.burst, this.tokens + ((t - this.last) * this.opts.perSecond) / 1000);
    this.last = t;
    if (this.tokens >= 1) {
      this.tokens--;
      return true;
    }
    this.droppedSinceReport++;
    return false;
  }

  /** Lines dropped since the last call (for a periodic summary). */
  takeDropped(): number {
    const n = this.droppedSinceReport;
    this.droppedSinceReport = 0;
    return n;
  }
}
