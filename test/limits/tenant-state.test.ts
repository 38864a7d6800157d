import { describe, expect, it } from 'vitest';
import { TenantLimitState } from '../../src/limits/tenant-state.js';

/** The decisions a tenant's Durable Object makes, on a clock the test moves by hand. */
function state() {
  const clock = { now: 1_000_000 };
  return { s: new TenantLimitState(() => clock.now), clock };
}

describe('TenantLimitState', () => {
  it('applies the hook rate, then the tenant rate, charging nothing on a refusal', () => {
    const { s, clock } = state();
    const hookLimits = { callsPerSecond: 1, burst: 1 };
    const tenantLimits = { callsPerSecond: 1, burst: 2 };
    expect(s.decide({ hook: 'a', hookLimits, tenantLimits, ttlMs: 0 })).toEqual({ ok: true });
    expect(s.decide({ hook: 'a', hookLimits, tenantLimits, ttlMs: 0 })).toMatchObject({ limit: 'hook_rate' });
    // The refusal above did not take the tenant's second token.
    expect(s.decide({ hook: 'b', tenantLimits, ttlMs: 0 })).toEqual({ ok: true });
    expect(s.decide({ hook: 'b', tenantLimits, ttlMs: 0 })).toEqual({
      ok: false,
      limit: 'tenant_rate',
      retryAfterMs: 1000,
    });
    clock.now += 1000;
    expect(s.decide({ hook: 'b', tenantLimits, ttlMs: 0 })).toEqual({ ok: true });
  });

  it('counts leases in flight per hook and per tenant until released or expired', () => {
    const { s, clock } = state();
    const hookLimits = { burst: 1, maxInFlight: 1 };
    const tenantLimits = { burst: 1, maxInFlight: 2 };
    const ask = (hook: string, lease: string, ttlMs = 5000) =>
      s.decide({ hook, hookLimits: hook === 'a' ? hookLimits : undefined, tenantLimits, lease, ttlMs });
    expect(ask('a', 'l1')).toEqual({ ok: true });
    expect(ask('a', 'l2')).toEqual({ ok: false, limit: 'hook_in_flight', retryAfterMs: 1000 });
    expect(ask('b', 'l3', 100)).toEqual({ ok: true });
    expect(ask('b', 'l4')).toMatchObject({ limit: 'tenant_in_flight' });
    s.release('a', 'l1');
    expect(ask('a', 'l5')).toEqual({ ok: true });
    expect(ask('b', 'l6')).toMatchObject({ limit: 'tenant_in_flight' }); // l3 and l5
    clock.now += 100; // l3 was never released: it stops counting at its deadline
    expect(ask('b', 'l7')).toEqual({ ok: true });
  });

  it('charges events the rate only', () => {
    const { s } = state();
    const hookLimits = { callsPerSecond: 1, burst: 2, maxInFlight: 1 };
    expect(s.decide({ hook: 'a', hookLimits, ttlMs: 0 })).toEqual({ ok: true });
    expect(s.decide({ hook: 'a', hookLimits, lease: 'x', ttlMs: 1000 })).toEqual({ ok: true });
    expect(s.decide({ hook: 'a', hookLimits, ttlMs: 0 })).toMatchObject({ limit: 'hook_rate' });
  });
});
