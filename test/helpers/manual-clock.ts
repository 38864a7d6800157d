import type { Clock } from '../../src/approvals/clock.js';

/**
 * A clock the test moves by hand: `advance` fires, in order, every timer due by then. Lets a test
 * put a decision and a deadline in the same instant without sleeping.
 */
export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  constructor(private t = 1_700_000_000_000) {}

  now(): number {
    return this.t;
  }

  schedule(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + Math.max(0, ms), fn, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Moves time forward without firing anything (a timer that runs late). */
  set(t: number): void {
    this.t = t;
  }

  /** Moves time forward and fires the timers now due. */
  advance(ms: number): void {
    this.t += ms;
    this.fireDue();
  }

  fireDue(): void {
    const due = this.timers.filter((x) => x.at <= this.t && !x.cancelled).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((x) => !due.includes(x));
    for (const x of due) x.fn();
  }

  /** Timers not yet fired or cancelled. */
  get scheduled(): number {
    return this.timers.filter((x) => !x.cancelled).length;
  }
}
