/**
 * Time as the broker sees it: injected so a test can put a decision and the deadline in the same
 * instant, in either order, without sleeping.
 */
export interface Clock {
  /** Epoch ms. */
  now(): number;
  /** Runs `fn` after `ms`; returns a cancel. */
  schedule(ms: number, fn: () => void): () => void;
}

/** setTimeout's largest delay; a longer one would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(ms, fn) {
    const timer = setTimeout(fn, Math.min(Math.max(0, ms), MAX_DELAY_MS));
    return () => clearTimeout(timer);
  },
};
