import { describe, expect, it } from 'vitest';
import type { ConfigIssue } from '../../src/config/errors.js';
import {
  compileToolGrant,
  grantListSchema,
  grantNames,
  mergeToolGrants,
} from '../../src/config/grant-entries.js';

const PATH = 'tenants.acme.hooks.guard.grants.approve_tools';

function compile(list: unknown) {
  const issues: ConfigIssue[] = [];
  const grant = compileToolGrant(grantListSchema.parse(list), PATH, issues);
  return { grant, issues };
}

describe('grant lists with conditions', () => {
  it('takes plain names and { tool | name, when } entries, grouped by tool in config order', () => {
    const { grant, issues } = compile([
      'Read',
      { tool: 'Bash', when: 'args.command.startsWith("git status")' },
      { name: 'Bash', when: 'args.command.startsWith("git diff")' },
      { tool: 'Write' },
    ]);
    expect(issues).toEqual([]);
    expect([...grant.names]).toEqual(['Read', 'Bash', 'Write']);
    expect(grant.entries.get('Bash')!.map((e) => [e.path, e.condition?.source])).toEqual([
      [`${PATH}.1`, 'args.command.startsWith("git status")'],
      [`${PATH}.2`, 'args.command.startsWith("git diff")'],
    ]);
    expect(grant.entries.get('Read')![0]!.condition).toBeUndefined();
    expect(grant.entries.get('Write')![0]!.condition).toBeUndefined();
  });

  it('reports every bad condition under its own path, in one load', () => {
    const { issues } = compile([
      { tool: 'Bash', when: 'args.command.startsWith(' },
      'Read',
      { tool: 'exec', when: 'tool + 1 == 2' },
      { tool: 'exec', when: 'args.command.matches("(?=x)")' },
    ]);
    expect(issues.map((i) => i.path)).toEqual([`${PATH}.0.when`, `${PATH}.2.when`, `${PATH}.3.when`]);
    expect(issues[0]!.message).toMatch(/^syntax error/);
    expect(issues[1]!.message).toMatch(/^type error/);
    expect(issues[2]!.message).toMatch(/unsupported Perl syntax/);
  });

  it('refuses an entry that names its tool twice, or not at all, and unknown keys', () => {
    for (const bad of [{ tool: 'a', name: 'a', when: 'true' }, { when: 'true' }, { tool: 'a', if: 'true' }]) {
      expect(grantListSchema.safeParse([bad]).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('the names of a list, and two lists as one', () => {
  it('names every tool a list carries, with or without a condition', () => {
    expect([...grantNames(grantListSchema.parse(['a', { tool: 'b', when: 'true' }, { name: 'a' }]))]).toEqual(
      ['a', 'b'],
    );
  });

  it('merges the entries of two lists per tool, the first list’s first (own tools, then rewrite_tools)', () => {
    const own = compile([{ name: 'http_get', when: 'true' }]).grant;
    const issues: ConfigIssue[] = [];
    const extra = compileToolGrant(
      grantListSchema.parse(['exec', 'http_get']),
      'tenants.acme.hooks.guard.grants.rewrite_tools',
      issues,
    );
    const merged = mergeToolGrants(own, extra);
    expect([...merged.names]).toEqual(['http_get', 'exec']);
    expect(merged.entries.get('http_get')!.map((e) => e.path)).toEqual([
      `${PATH}.0`,
      'tenants.acme.hooks.guard.grants.rewrite_tools.1',
    ]);
  });
});
