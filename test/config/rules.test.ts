import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const KEYS = { keys: [{ alg: 'HS256', secret: 'rules-config-secret-0123456789abcdefghij' }] };
const rec = { backend: { type: 'module', module: 'x.js' } };

function compile(tenant: Record<string, unknown>) {
  return compileConfig({ tenants: { acme: { auth: KEYS, hooks: { guard: rec }, ...tenant } } }, (r) => r);
}

function issuesOf(tenant: Record<string, unknown>) {
  try {
    compile(tenant);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  throw new Error('compiled');
}

describe('gateway rules in the config', () => {
  it('puts the tenant’s rules before the hook’s, each with its path, and resolves each one’s mode', () => {
    const config = compile({
      mode: 'enforce',
      rules: [{ name: 'a', tool: '*', action: 'deny' }],
      hooks: {
        guard: {
          ...rec,
          mode: 'shadow',
          rules: [
            { name: 'b', kind: ['shell', 'file_read'], when: 'call.command != ""', action: 'ask' },
            { name: 'c', tool: ['Bash', 'exec'], action: 'allow', mode: 'enforce', reason: 'fine' },
          ],
        },
      },
    });
    const hook = config.tenants.get('acme')!.hooks.get('guard')!;
    expect(hook.shadow).toBe(true);
    expect(
      hook.rules.map((r) => [r.name, r.path, r.mode, r.anyTool, [...r.tools], [...r.kinds], r.reason]),
    ).toEqual([
      ['a', 'tenants.acme.rules.0', 'enforce', true, [], [], 'denied by rule "a"'],
      [
        'b',
        'tenants.acme.hooks.guard.rules.0',
        'shadow',
        false,
        [],
        ['shell', 'file_read'],
        'rule "b" asks for a person\'s approval',
      ],
      ['c', 'tenants.acme.hooks.guard.rules.1', 'enforce', false, ['Bash', 'exec'], [], 'fine'],
    ]);
  });

  it('a tenant in shadow puts its rules and every hook in shadow, whatever the hook says', () => {
    const config = compile({
      mode: 'shadow',
      rules: [{ name: 'a', tool: '*', action: 'deny' }],
      hooks: { guard: { ...rec, mode: 'enforce', rules: [{ name: 'b', tool: '*', action: 'deny' }] } },
    });
    const hook = config.tenants.get('acme')!.hooks.get('guard')!;
    expect(hook.shadow).toBe(true);
    expect(hook.rules.map((r) => r.mode)).toEqual(['shadow', 'shadow']);
  });

  it('names every bad rule by its path, in one load', () => {
    const issues = issuesOf({
      rules: [
        { name: 'x', tool: 'Bash', when: 'args.command.startsWith(', action: 'deny' },
        { name: 'x', tool: 'Bash', action: 'deny' },
        { name: 'y', tool: 'Bash', when: 'args.command.matches("(a)\\\\1")', action: 'deny' },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual([
      'tenants.acme.rules.0.when',
      'tenants.acme.rules.1.name',
      'tenants.acme.rules.2.when',
    ]);
    expect(issues[0]!.message).toMatch(/^syntax error/);
    expect(issues[1]!.message).toBe('duplicate rule name "x"');
  });

  it('refuses a rule that names no calls, an unknown kind or action, and unknown keys', () => {
    for (const [rule, path] of [
      [{ name: 'a', action: 'deny' }, 'tenants.acme.rules.0'],
      [{ name: 'a', kind: 'database', action: 'deny' }, 'tenants.acme.rules.0.kind'],
      [{ name: 'a', tool: '*', action: 'block' }, 'tenants.acme.rules.0.action'],
      [{ name: 'a', tool: '*', action: 'deny', if: 'true' }, 'tenants.acme.rules.0.if'],
      [{ name: 'has space', tool: '*', action: 'deny' }, 'tenants.acme.rules.0.name'],
    ] as const) {
      const issues = issuesOf({ rules: [rule] });
      expect(
        issues.map((i) => i.path),
        JSON.stringify(rule),
      ).toContain(path);
    }
  });

  it('a hook made only of rules needs some (its own or its tenant’s)', () => {
    expect(issuesOf({ hooks: { guard: { backend: { type: 'rules' } } } })).toEqual([
      {
        path: 'tenants.acme.hooks.guard.rules',
        message: 'a hook with backend type rules needs rules (its own or its tenant’s)',
      },
    ]);
    const ok = compile({
      rules: [{ name: 'a', tool: '*', action: 'deny' }],
      hooks: { guard: { backend: { type: 'rules' } } },
    });
    expect(ok.tenants.get('acme')!.hooks.get('guard')!.backend).toEqual({ type: 'rules' });
  });
});
