/**
 * Full-jitter exponential backoff: a delay drawn from [max/2, max] where max doubles per failure up
 * to the cap. The lower half keeps a restarted peer from being hit by every client at once while
 * still bounding how long calls fail after it is back. Callers `reset()` after a stable run, so a
 * process that crashes once a day restarts fast and one that crashes in a loop backs off.
 */
export class Backoff {
  private failures = 0;
  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {
    if (!(minMs > 0 && maxMs >= minMs)) throw new RangeError('Backoff needs 0 < minMs <= maxMs');
  }

  next(): number {
    const ceiling = Math.min(this.maxMs, this.minMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.failures = 0;
  }
}
