import { describe, expect, it } from 'vitest';
import type { ConfigIssue } from '../../../src/config/errors.js';
import { compileToolGrant, grantListSchema } from '../../../src/config/grant-entries.js';
import { checkGrant, checkRewriteGrant } from '../../../src/policy/conditions/index.js';
import { BASE_VIEW } from './cases.js';

const PATH = 'tenants.acme.hooks.guard.grants.approve_tools';

function grantOf(list: unknown) {
  const issues: ConfigIssue[] = [];
  const grant = compileToolGrant(grantListSchema.parse(list), PATH, issues);
  expect(issues).toEqual([]);
  return grant;
}

const view = (args: Record<string, unknown>, tool = 'Bash') => ({ ...BASE_VIEW, tool, args });

describe('checkGrant', () => {
  const grant = grantOf([
    { tool: 'Bash', when: 'args.command.startsWith("git status")' },
    { tool: 'Bash', when: 'args.command.startsWith("git diff")' },
    'Read',
    { tool: 'http_get', when: 'args.url.startsWith("https://api.acme.test/")' },
  ]);

  it('grants a call the first holding entry covers, naming it', () => {
    expect(checkGrant(grant, 'Bash', view({ command: 'git status' }))).toEqual({
      granted: true,
      entry: `${PATH}.0`,
    });
    expect(checkGrant(grant, 'Bash', view({ command: 'git diff HEAD' }))).toEqual({
      granted: true,
      entry: `${PATH}.1`,
    });
  });

  it('refuses a call no entry covers, naming the entries that did not hold', () => {
    expect(checkGrant(grant, 'Bash', view({ command: 'git push --force' }))).toEqual({
      granted: false,
      reason: `${PATH}.0, ${PATH}.1: condition is false`,
      entries: [`${PATH}.0`, `${PATH}.1`],
    });
  });

  it('a plain name grants whatever the arguments; a tool not named is refused as today', () => {
    expect(checkGrant(grant, 'Read', view({ path: '/etc/shadow' }, 'Read'))).toEqual({
      granted: true,
      entry: `${PATH}.2`,
    });
    expect(checkGrant(grant, 'Write', view({}, 'Write'))).toEqual({
      granted: false,
      reason: 'tool "Write" is not granted',
      entries: [],
    });
  });

  it('a condition that errs refuses (fails closed), naming the entry and the error', () => {
    const d = checkGrant(grant, 'http_get', view({ href: 'https://api.acme.test/' }, 'http_get'));
    expect(d).toEqual({
      granted: false,
      reason: `${PATH}.3: condition failed: No such key: url`,
      entries: [`${PATH}.3`],
      error: { entry: `${PATH}.3`, message: 'No such key: url' },
    });
  });

  it('an entry that holds grants even where an earlier one erred', () => {
    const g = grantOf([
      { tool: 'exec', when: 'args.cmd.startsWith("ls")' },
      { tool: 'exec', when: 'args.command.startsWith("ls")' },
    ]);
    expect(checkGrant(g, 'exec', view({ command: 'ls -la' }, 'exec'))).toEqual({
      granted: true,
      entry: `${PATH}.1`,
    });
  });
});

describe('checkRewriteGrant: on the call and on the new arguments', () => {
  const grant = grantOf([{ tool: 'exec', when: 'args.command.startsWith("git ")' }]);

  it('grants a rewrite that both the call and its new arguments satisfy', () => {
    expect(
      checkRewriteGrant(grant, 'exec', view({ command: 'git push' }, 'exec'), {
        command: 'git push --dry-run',
      }),
    ).toEqual({ granted: true, entry: `${PATH}.0` });
  });

  it('refuses a rewrite of a granted call into arguments the condition does not cover', () => {
    const d = checkRewriteGrant(grant, 'exec', view({ command: 'git status' }, 'exec'), {
      command: 'rm -rf /',
    });
    expect(d.granted).toBe(false);
    expect(d.granted === false && d.reason).toBe(`on the rewritten arguments: ${PATH}.0: condition is false`);
  });

  it('refuses a rewrite of a call the condition does not cover, even into covered arguments', () => {
    const d = checkRewriteGrant(grant, 'exec', view({ command: 'make' }, 'exec'), { command: 'git status' });
    expect(d).toMatchObject({ granted: false, reason: `${PATH}.0: condition is false` });
  });

  it('lets a condition compare the call with the rewrite through new_args', () => {
    const g = grantOf([{ tool: 'exec', when: 'new_args.command.startsWith(args.command)' }]);
    const call = view({ command: 'git log' }, 'exec');
    expect(checkRewriteGrant(g, 'exec', call, { command: 'git log --oneline' }).granted).toBe(true);
  });
});
