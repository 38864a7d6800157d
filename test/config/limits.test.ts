import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const KEY = { kid: 'k1', alg: 'HS256', secret: 'limits-test-secret-0123456789abcdefghij' };
const backend = { type: 'module', module: 'x.js' };

function doc(opts: { server?: object; tenantLimits?: unknown; hookLimits?: unknown; other?: unknown }) {
  return {
    server: opts.server,
    tenants: {
      acme: {
        auth: { keys: [KEY] },
        limits: opts.tenantLimits,
        hooks: { w: { backend, limits: opts.hookLimits }, plain: { backend } },
      },
      globex: { auth: { keys: [KEY] }, hooks: { w: { backend } } },
    },
  };
}

function issues(input: unknown, env: Record<string, string> = {}): string[] {
  try {
    compileConfig(input, (ref) => {
      if (!ref.startsWith('env:')) return ref;
      const v = env[ref.slice(4)];
      if (v === undefined) throw new Error(`environment variable ${ref.slice(4)} is not set`);
      return v;
    });
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('limits in the config', () => {
  it('compiles tenant and hook limits onto every hook they apply to; none means unlimited', () => {
    const c = compileConfig(
      doc({ tenantLimits: { max_in_flight: 8 }, hookLimits: { calls_per_second: 2.5, burst: 10 } }),
      (r) => r,
    );
    const acme = c.tenants.get('acme')!;
    expect(acme.limits).toEqual({ callsPerSecond: undefined, burst: 1, maxInFlight: 8 });
    expect(acme.hooks.get('w')!.limits).toEqual({
      hook: { callsPerSecond: 2.5, burst: 10, maxInFlight: undefined },
      tenant: acme.limits,
    });
    // A hook without limits of its own still carries its tenant's.
    expect(acme.hooks.get('plain')!.limits).toEqual({ hook: undefined, tenant: acme.limits });
    expect(c.tenants.get('globex')!.hooks.get('w')!.limits).toBeUndefined();
    expect('limits' in c.tenants.get('globex')!.hooks.get('w')!).toBe(true);
    expect(
      compileConfig(doc({ hookLimits: {} }), (r) => r)
        .tenants.get('acme')!
        .hooks.get('w')!.limits,
    ).toBe(undefined);
  });

  it('names every bad limit path', () => {
    const out = issues(
      doc({
        tenantLimits: { calls_per_second: 0, max_in_flight: 1.5 },
        hookLimits: { burst: -1, calls_per_sec: 3 },
      }),
    );
    expect(out.map((i) => i.split(':')[0]).sort()).toEqual([
      'tenants.acme.hooks.w.limits.burst',
      'tenants.acme.hooks.w.limits.calls_per_sec',
      'tenants.acme.limits.calls_per_second',
      'tenants.acme.limits.max_in_flight',
    ]);
  });

  it('refuses a burst without a rate, in the tenant and in the hook at once', () => {
    expect(
      issues(doc({ tenantLimits: { burst: 5 }, hookLimits: { burst: 2, max_in_flight: 1 } })).sort(),
    ).toEqual([
      'tenants.acme.hooks.w.limits.burst: needs calls_per_second',
      'tenants.acme.limits.burst: needs calls_per_second',
    ]);
  });
});
