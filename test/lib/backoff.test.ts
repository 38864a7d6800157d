import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/lib/backoff.js';

describe('Backoff', () => {
  it('grows exponentially with jitter up to the cap, and resets', () => {
    const b = new Backoff(100, 1000, () => 1);
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    b.reset();
    expect(b.next()).toBe(100);
    const low = new Backoff(100, 1000, () => 0);
    expect(low.next()).toBe(50);
  });

  it('draws every delay from the upper half of the current ceiling', () => {
    const b = new Backoff(100, 10_000);
    for (const ceiling of [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]) {
      const d = b.next();
      expect(d).toBeGreaterThanOrEqual(ceiling / 2);
      expect(d).toBeLessThanOrEqual(ceiling);
    }
  });

  it('does not overflow after very many failures', () => {
    const b = new Backoff(100, 5000, () => 1);
    for (let i = 0; i < 2000; i++) b.next();
    expect(b.next()).toBe(5000);
  });

  it('starts over only after a run that lasted: short runs (a peer that drops every connection) keep backing off', () => {
    let now = 0;
    const b = new Backoff(
      100,
      10_000,
      () => 1,
      5_000,
      () => now,
    );
    expect(b.next()).toBe(100);
    for (const expected of [200, 400, 800]) {
      b.started();
      now += 50; // up for 50 ms, then dropped again
      expect(b.next()).toBe(expected);
    }
    b.started();
    now += 5_000; // a stable run
    expect(b.next()).toBe(100);
    expect(b.next()).toBe(200); // a failure without a run in between keeps growing
  });

  it('refuses a range that cannot back off', () => {
    expect(() => new Backoff(0, 10)).toThrow(RangeError);
    expect(() => new Backoff(100, 10)).toThrow(RangeError);
  });
});
