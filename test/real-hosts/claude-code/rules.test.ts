import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claudeCodeSettings } from '../../../src/hosts/claude-code/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { marker, NO_RM_RF, RM_RF_REASON, ruleAudits, ruleDenial, victim } from '../rules-config.js';
import { CLAUDE_BIN, CLAUDE_CODE_VERSION, claudeInstalled, cleanup, runClaude } from './run-claude.js';

/**
 * Gateway rules on the real Claude Code (headless, hooks from `hookgate setup claude-code`, a fake
 * model asking for one Bash call): the tenant's one shell rule denies `rm -rf` before the hook is
 * asked, and an allow rule within a conditional `approve_tools` entry approves `git status` while
 * `git push` keeps Claude Code's own prompt (headless: denied).
 */
const missing = `Claude Code ${CLAUDE_CODE_VERSION} is not installed at ${CLAUDE_BIN} (bash scripts/hosts/install.sh)`;
const why = claudeInstalled ? '' : ` (skipped: ${missing})`;
if (!claudeInstalled && process.env.CI) {
  describe('Claude Code gateway rules', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const RM = 'Bash(rm *)';

describe.skipIf(!claudeInstalled)(`Claude Code ${CLAUDE_CODE_VERSION}: gateway rules${why}`, () => {
  if (!claudeInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: {
          ...tenantDoc({
            // The hook approves whatever Claude Code asks it to (a path outside the project needs
            // permission): without the rule, rm -rf would run.
            guard: { ...rec, modes: ['tool', 'approve'], grants: { approve_tools: ['Bash'] } },
            git: {
              ...rec,
              modes: ['tool', 'approve'],
              grants: { approve_tools: [{ tool: 'Bash', when: 'args.command.startsWith("git status")' }] },
              // The rule would allow any git command; approve_tools lets only `git status` through.
              rules: [
                { name: 'git', tool: 'Bash', when: 'args.command.startsWith("git ")', action: 'allow' },
              ],
            },
          }),
          rules: [NO_RM_RF],
        },
      },
    });
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = (method) =>
      method === 'hook.approve_tool' ? { approved: true } : { action: 'continue' };
  });

  const hooksFor = (hook: string) =>
    claudeCodeSettings(gw.config.tenants.get('acme')!.hooks.get(hook)!, gw.url).hooks;

  it('rm -rf: denied by the tenant rule, the directory stays, the model gets the reason, the hook is never asked', async () => {
    const v = victim();
    const before = gw.logs.audits().length;
    const run = await runClaude({
      command: `rm -rf ${v.dir}`,
      hooks: hooksFor('guard'),
      token: await gw.token(),
      allowedTools: RM,
    });
    try {
      expect(v.intact()).toBe(true);
      expect(run.toolResults).toHaveLength(1);
      expect(run.toolResults[0].isError).toBe(true);
      expect(run.toolResults[0].content).toContain(RM_RF_REASON);
      expect(run.result.permission_denials).toHaveLength(1);
      expect(recorder().calls).toEqual([]);
      expect(ruleAudits(gw, before)).toEqual([expect.objectContaining(ruleDenial('claude-code'))]);
    } finally {
      cleanup(run);
      v.remove();
    }
  });

  it('positive control: rm -r (not -rf) under the same rule runs (the hook is asked and approves) and removes its directory', async () => {
    const v = victim();
    const before = gw.logs.audits().length;
    const run = await runClaude({
      command: `rm -r ${v.dir}`,
      hooks: hooksFor('guard'),
      token: await gw.token(),
      allowedTools: RM,
    });
    try {
      expect(run.toolResults).toEqual([{ content: expect.any(String), isError: false }]);
      expect(v.intact()).toBe(false);
      expect(recorder().calls.map((c) => c.method)).toContain('hook.before_tool');
      expect(ruleAudits(gw, before)).toEqual([]);
    } finally {
      cleanup(run);
      v.remove();
    }
  });

  it('git status (a conditional approve_tools entry and an allow rule): it runs unprompted, the hook is not asked to approve', async () => {
    const m = marker();
    const run = await runClaude({
      // The redirection needs Claude Code's permission: the PermissionRequest decides.
      command: `git status > status-${m}.txt 2>&1`,
      hooks: hooksFor('git'),
      token: await gw.token(),
    });
    try {
      expect(run.result.permission_denials).toEqual([]);
      expect(existsSync(join(run.project, `status-${m}.txt`))).toBe(true);
      expect(readFileSync(join(run.project, `status-${m}.txt`), 'utf8')).toMatch(/git|repository/i);
      expect(recorder().calls.map((c) => c.method)).not.toContain('hook.approve_tool');
    } finally {
      cleanup(run);
    }
  });

  it('git push (the rule allows it, the approve_tools condition does not): refused headless, the prompt is not skipped', async () => {
    const m = marker();
    const before = gw.logs.audits().length;
    const run = await runClaude({
      command: `git push > push-${m}.txt 2>&1`,
      hooks: hooksFor('git'),
      token: await gw.token(),
    });
    try {
      expect(existsSync(join(run.project, `push-${m}.txt`))).toBe(false);
      expect(run.result.permission_denials).toHaveLength(1);
      expect(recorder().calls.map((c) => c.method)).not.toContain('hook.approve_tool');
      expect(gw.logs.audits().slice(before)).toEqual([
        expect.objectContaining({ rule: 'approve_tool_not_granted', dialect: 'claude-code', hook: 'git' }),
      ]);
    } finally {
      cleanup(run);
    }
  });
});
