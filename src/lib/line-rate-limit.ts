/**
 * A token bucket for log lines: `burst` lines at once, refilled at `perSecond`. What it refuses is
 * counted, so the caller can say how much it dropped instead of dropping silently.
 */
export interface LineRateLimitOptions {
  burst: number;
  perSecond: number;
  now?: () => number;
}

export class LineRateLimit {
  private tokens: number;
  private last: number;
  private droppedSinceReport = 0;
  private readonly now: () => number;

  constructor(private readonly opts: LineRateLimitOptions) {
    if (!(opts.burst >= 1 && opts.perSecond >= 0)) {
      throw new RangeError('LineRateLimit needs burst >= 1 and perSecond >= 0');
    }
    this.now = opts.now ?? Date.now;
    this.tokens = opts.burst;
    this.last = this.now();
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
