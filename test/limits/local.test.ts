import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import type { HookRuntime } from '../../src/config/runtime.js';
import { LocalLimiter } from '../../src/limits/local.js';
import { Refusal } from '../../src/limits/types.js';

const KEY = { kid: 'k1', alg: 'HS256', secret: 'limits-test-secret-0123456789abcdefghij' };
const backend = { type: 'module', module: 'x.js' };

/** Hooks `a` and `b` of tenant acme, with the given limits. */
function hooks(tenantLimits?: object, aLimits?: object, bLimits?: object) {
  const config = compileConfig(
    {
      tenants: {
        acme: {
          auth: { keys: [KEY] },
          limits: tenantLimits,
          hooks: { a: { backend, limits: aLimits }, b: { backend, limits: bLimits } },
        },
      },
    },
    (r) => r,
  );
  const t = config.tenants.get('acme')!;
  return { a: t.hooks.get('a')!, b: t.hooks.get('b')! };
}

/** A limiter on a clock the test moves by hand. */
function limiter() {
  const clock = { now: 1_000_000 };
  return { lim: new LocalLimiter(() => clock.now), clock };
}

function refusal(x: unknown): Refusal {
  expect(x).toBeInstanceOf(Refusal);
  return x as Refusal;
}

function admitted(lim: LocalLimiter, hook: HookRuntime, n: number) {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    const a = lim.acquire(hook, 1000);
    if (!(a instanceof Refusal)) {
      ok++;
      a.release();
    }
  }
  return ok;
}

describe('LocalLimiter rate (GCRA)', () => {
  it('admits a burst at once, then one call per interval, and says how long to wait', () => {
    const { a } = hooks(undefined, { calls_per_second: 2, burst: 3 });
    const { lim, clock } = limiter();
    expect(admitted(lim, a, 10)).toBe(3);
    const r = refusal(lim.acquire(a, 1000));
    expect(r.limit).toBe('hook_rate');
    expect(r.retryAfterMs).toBe(500);
    expect(r.retryAfterSeconds).toBe(1);
    clock.now += 499;
    expect(refusal(lim.acquire(a, 1000)).retryAfterMs).toBe(1);
    clock.now += 1;
    expect(admitted(lim, a, 10)).toBe(1);
    // Idle for long: the burst refills, but never beyond it.
    clock.now += 60_000;
    expect(admitted(lim, a, 10)).toBe(3);
  });

  it('defaults burst to one second of calls, and at least one', () => {
    const { a, b } = hooks(undefined, { calls_per_second: 5 }, { calls_per_second: 0.5 });
    const { lim } = limiter();
    expect(admitted(lim, a, 20)).toBe(5);
    expect(admitted(lim, b, 20)).toBe(1);
    expect(refusal(lim.acquire(b, 1000)).retryAfterMs).toBe(2000);
  });

  it('shares a tenant limit across its hooks; a hook limit is its own', () => {
    const { a, b } = hooks({ calls_per_second: 1, burst: 4 }, { calls_per_second: 1, burst: 3 });
    const { lim } = limiter();
    expect(admitted(lim, a, 10)).toBe(3);
    expect(refusal(lim.acquire(a, 1000)).limit).toBe('hook_rate');
    // b has no limit of its own: it gets what is left of the tenant's burst.
    expect(admitted(lim, b, 10)).toBe(1);
    expect(refusal(lim.acquire(b, 1000)).limit).toBe('tenant_rate');
  });

  it('charges no scope for a refused call', () => {
    const { a, b } = hooks({ calls_per_second: 1, burst: 2 }, { calls_per_second: 1, burst: 1 });
    const { lim } = limiter();
    expect(admitted(lim, a, 5)).toBe(1); // 4 refused by the hook limit...
    expect(admitted(lim, b, 5)).toBe(1); // ...did not use the tenant's second token
  });
});

describe('LocalLimiter in flight', () => {
  it('refuses beyond max_in_flight until a call is released', () => {
    const { a, b } = hooks({ max_in_flight: 3 }, { max_in_flight: 2 });
    const { lim } = limiter();
    const l1 = lim.acquire(a, 1000);
    const l2 = lim.acquire(a, 1000);
    const r = refusal(lim.acquire(a, 1000));
    expect(r.limit).toBe('hook_in_flight');
    expect(r.retryAfterMs).toBe(1000);
    const l3 = lim.acquire(b, 1000);
    expect(refusal(lim.acquire(b, 1000)).limit).toBe('tenant_in_flight');
    expect(lim.inFlight(a)).toEqual({ hook: 2, tenant: 3 });
    (l1 as { release(): void }).release();
    expect(lim.acquire(b, 1000)).not.toBeInstanceOf(Refusal);
    for (const l of [l2, l3]) (l as { release(): void }).release();
  });

  it('admits without allocating: every call of a hook gets the same lease', () => {
    const { a } = hooks(undefined, { max_in_flight: 5, calls_per_second: 1000, burst: 100 });
    const { lim } = limiter();
    const first = lim.acquire(a, 1000);
    expect(lim.acquire(a, 1000)).toBe(first);
  });
});

describe('LocalLimiter events', () => {
  it('charges the rate, never the in-flight count', () => {
    const { a } = hooks(undefined, { calls_per_second: 1, burst: 2, max_in_flight: 1 });
    const { lim } = limiter();
    expect(lim.admitEvent(a)).toBeNull();
    expect(lim.inFlight(a).hook).toBe(0);
    expect(lim.admitEvent(a)).toBeNull();
    expect(lim.admitEvent(a)?.limit).toBe('hook_rate');
    expect(refusal(lim.acquire(a, 1000)).limit).toBe('hook_rate');
  });
});
