import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const SECRET = 'config-test-secret-0123456789abcdefghij';

/** `sandbox.network` of one stdio hook as compiled, or the config's issues. */
function network(value?: unknown): unknown {
  const backend = {
    type: 'stdio',
    command: ['python3', 'hook.py'],
    ...(value === undefined ? {} : { sandbox: { network: value } }),
  };
  const doc = {
    tenants: {
      acme: { auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }] }, hooks: { h: { backend } } },
    },
  };
  try {
    const hook = compileConfig(doc, (ref) => ref)
      .tenants.get('acme')!
      .hooks.get('h')!;
    return (hook.backend as { sandbox: { network: unknown } }).sandbox.network;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('sandbox.network in the config', () => {
  it('defaults to outbound, and takes outbound, none and host', () => {
    expect(network()).toBe('outbound');
    for (const v of ['outbound', 'none', 'host']) expect(network(v)).toBe(v);
  });

  it("reads an older config's booleans: true is outbound, false is none (never the host network)", () => {
    expect(network(true)).toBe('outbound');
    expect(network(false)).toBe('none');
  });

  it('names a bad value with its path and what it may be', () => {
    for (const bad of ['public', 'HOST', 1, null]) {
      const issues = network(bad) as string[];
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatch(/^tenants\.acme\.hooks\.h\.backend\.sandbox\.network: /);
      expect(issues[0]).toMatch(/outbound.*none.*host/);
    }
  });
});
