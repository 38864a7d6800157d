/**
 * Full-jitter exponential backoff: a delay drawn from [max/2, max] where max doubles per failure up
 * to the cap. The lower half keeps a restarted peer from being hit by every client at once while
 * still bounding how long calls fail after it is back. A run counts as stable once it has lasted
 * `stableAfterMs` since `started()`: only then does the next failure start again at the first step,
 * so a process that crashes once a day restarts fast, and one that crashes (or a peer that closes
 * every connection) right after starting backs off instead of being retried at the first step forever.
 */
export class Backoff {
  private failures = 0;
  private startedAt?: number;
  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
    private readonly stableAfterMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    if (!(minMs > 0 && maxMs >= minMs)) throw new RangeError('Backoff needs 0 < minMs <= maxMs');
  }

  /** The thing came up (a process said hello, a connection opened); see the class comment. */
  started(): void {
    this.startedAt = this.now();
  }

  /** The delay before the next attempt, after a failure or the end of a run. */
  next(): number {
    if (this.startedAt !== undefined && this.now() - this.startedAt >= this.stableAfterMs) this.failures = 0;
    this.startedAt = undefined;
    const ceiling = Math.min(this.maxMs, this.minMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.failures = 0;
  }
}
