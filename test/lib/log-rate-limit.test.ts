import { describe, expect, it } from 'vitest';
import { LogRateLimit } from '../../src/lib/log-rate-limit.js';

describe('LogRateLimit', () => {
  it('lets a burst through, then refills at the rate, and counts what it dropped', () => {
    let now = 1_000;
    const limit = new LogRateLimit({ burst: 3, perSecond: 2, now: () => now });
    expect([limit.take(), limit.take(), limit.take(), limit.take(), limit.take()]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(limit.takeDropped()).toBe(2);
    expect(limit.takeDropped()).toBe(0);
    now += 500; // one token back
    expect([limit.take(), limit.take()]).toEqual([true, false]);
    now += 60_000; // never more than the burst
    expect(Array.from({ length: 5 }, () => limit.take())).toEqual([true, true, true, false, false]);
    expect(limit.takeDropped()).toBe(3);
  });

  it('with rate 0 logs only the burst', () => {
    let now = 0;
    const limit = new LogRateLimit({ burst: 1, perSecond: 0, now: () => now });
    expect(limit.take()).toBe(true);
    now += 1e9;
    expect(limit.take()).toBe(false);
  });

  it('refuses a bucket that holds no line', () => {
    expect(() => new LogRateLimit({ burst: 0, perSecond: 1 })).toThrow(RangeError);
  });
});

describe('LogRateLimit.every', () => {
  it('lets the first line through, then one per interval with the count skipped', () => {
    let now = 0;
    const t = LogRateLimit.every(1000, () => now);
    expect(t.admit()).toBe(0);
    expect(t.admit()).toBe(-1);
    now = 999;
    expect(t.admit()).toBe(-1);
    now = 1000;
    expect(t.admit()).toBe(2);
    now = 5000;
    expect(t.admit()).toBe(0);
    expect(t.admit()).toBe(-1);
  });
});
