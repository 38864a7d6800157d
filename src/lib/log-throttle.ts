/**
 * At most one log line per interval for one recurring condition (a flood of refused calls, a store
 * that stays down): the first occurrence is logged at once, the rest are counted and the count goes
 * out with the next line.
 */
export class LogThrottle {
  private last = Number.NEGATIVE_INFINITY;
  private skipped = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** -1 when this occurrence should not be logged; otherwise how many were not logged since the last line. */
  take(): number {
    const t = this.now();
    if (t - this.last < this.intervalMs) {
      this.skipped++;
      return -1;
    }
    this.last = t;
    const n = this.skipped;
    this.skipped = 0;
    return n;
  }
}
