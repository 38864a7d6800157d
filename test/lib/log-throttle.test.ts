import { describe, expect, it } from 'vitest';
import { LogThrottle } from '../../src/lib/log-throttle.js';

describe('LogThrottle', () => {
  it('lets the first line through, then one per interval with the count skipped', () => {
    let now = 0;
    const t = new LogThrottle(1000, () => now);
    expect(t.take()).toBe(0);
    expect(t.take()).toBe(-1);
    now = 999;
    expect(t.take()).toBe(-1);
    now = 1000;
    expect(t.take()).toBe(2);
    now = 5000;
    expect(t.take()).toBe(0);
  });
});
