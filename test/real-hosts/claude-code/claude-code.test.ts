import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claudeCodeSettings } from '../../../src/hosts/claude-code/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { CLAUDE_BIN, CLAUDE_CODE_VERSION, claudeInstalled, cleanup, runClaude } from './run-claude.js';

/**
 * The real Claude Code (pinned in scripts/hosts/install-claude-code.sh), headless, with hooks from
 * `hookgate setup claude-code` pointing at a gateway on 127.0.0.1, and a fake model that asks for
 * one harmless Bash call. What ran is read from the tool result the model got and from files the
 * command writes in the throwaway project.
 */
const missing = `Claude Code ${CLAUDE_CODE_VERSION} is not installed at ${CLAUDE_BIN} (bash scripts/hosts/install.sh)`;
const why = claudeInstalled ? '' : ` (skipped: ${missing})`;
if (!claudeInstalled && process.env.CI) {
  describe('Claude Code host', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const deadBackend = {
  backend: {
    type: 'http',
    url: 'http://127.0.0.1:9/hook',
    secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`,
  },
};
const marker = () => Math.random().toString(16).slice(2, 12);
const ECHO = 'Bash(echo *)';

describe.skipIf(!claudeInstalled)(`Claude Code ${CLAUDE_CODE_VERSION} through hookgate${why}`, () => {
  if (!claudeInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          granted: {
            ...rec,
            modes: ['tool', 'approve'],
            grants: { rewrite_tools: ['Bash'], approve_tools: ['Bash'] },
          },
          plain: { ...rec, modes: ['tool', 'approve'] },
          redactor: { ...rec, modes: ['tool'], grants: { rewrite_results: true } },
          strict: { ...rec, modes: ['tool'], on_failure: 'closed' },
          down: { ...deadBackend, modes: ['tool'], on_failure: 'closed' },
        }),
      },
    });
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = (method) =>
      method === 'hook.approve_tool' ? { approved: false } : { action: 'continue' };
  });

  const hooksFor = (hook: string) =>
    claudeCodeSettings(gw.config.tenants.get('acme')!.hooks.get(hook)!, gw.url).hooks;

  it('a hook denies a command: it does not run, the model gets the reason', async () => {
    const m = marker();
    recorder().answer = () => ({ action: 'deny_tool', reason: `E2E-DENY-${m}` });
    const run = await runClaude({
      command: `echo original-${m}`,
      hooks: hooksFor('plain'),
      token: await gw.token(),
      allowedTools: ECHO,
    });
    try {
      expect(run.toolResults).toHaveLength(1);
      expect(run.toolResults[0].isError).toBe(true);
      expect(run.toolResults[0].content).toContain(`E2E-DENY-${m}`);
      expect(run.result.permission_denials).toHaveLength(1);
      expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
    } finally {
      cleanup(run);
    }
  });

  const rewrite = (m: string) => (method: string, params: any) =>
    method === 'hook.before_tool'
      ? {
          action: 'modify',
          call: { ...params, arguments: { ...params.arguments, command: `echo rewritten-${m}` } },
        }
      : { action: 'continue' };

  it('a granted rewrite: the rewritten command is what ran', async () => {
    const m = marker();
    recorder().answer = rewrite(m);
    const run = await runClaude({
      command: `echo original-${m}`,
      hooks: hooksFor('granted'),
      token: await gw.token(),
      allowedTools: ECHO,
    });
    try {
      expect(run.toolResults).toEqual([{ content: `rewritten-${m}`, isError: false }]);
      const after = recorder().calls.find((c) => c.method === 'hook.after_tool');
      expect(after?.params.arguments.command).toBe(`echo rewritten-${m}`);
    } finally {
      cleanup(run);
    }
  });

  it('a rewrite without the grant: the original ran, and the refusal is audited', async () => {
    const m = marker();
    recorder().answer = rewrite(m);
    const before = gw.logs.audits().length;
    const run = await runClaude({
      command: `echo original-${m}`,
      hooks: hooksFor('plain'),
      token: await gw.token(),
      allowedTools: ECHO,
    });
    try {
      expect(run.toolResults).toEqual([{ content: `original-${m}`, isError: false }]);
      expect(gw.logs.audits().slice(before)).toEqual([
        expect.objectContaining({
          dialect: 'claude-code',
          rule: 'rewrite_arguments_not_granted',
          hook: 'plain',
        }),
      ]);
    } finally {
      cleanup(run);
    }
  });

  it('a granted result rewrite: the model gets the hook’s text in place of the output', async () => {
    const m = marker();
    recorder().answer = (method, params: any) =>
      method === 'hook.after_tool'
        ? { action: 'modify', result: { ...params, result: { ...params.result, for_llm: `REDACTED-${m}` } } }
        : { action: 'continue' };
    const run = await runClaude({
      command: `echo secret-${m}`,
      hooks: hooksFor('redactor'),
      token: await gw.token(),
      allowedTools: ECHO,
    });
    try {
      expect(recorder().calls.find((c) => c.method === 'hook.after_tool')?.params.result.for_llm).toBe(
        `secret-${m}`,
      );
      expect(run.toolResults).toEqual([{ content: `REDACTED-${m}`, isError: false }]);
    } finally {
      cleanup(run);
    }
  });

  // Output redirection needs permission in Claude Code: the PermissionRequest decides.
  const approving = () => {
    recorder().answer = (method) =>
      method === 'hook.approve_tool' ? { approved: true } : { action: 'continue' };
  };

  it('approved:true for a tool outside approve_tools: no verdict leaves, the host still denies headless', async () => {
    const m = marker();
    approving();
    const run = await runClaude({
      command: `echo approved-${m} > marker.txt`,
      hooks: hooksFor('plain'),
      token: await gw.token(),
    });
    try {
      expect(recorder().calls.map((c) => c.method)).toContain('hook.approve_tool');
      expect(existsSync(join(run.project, 'marker.txt'))).toBe(false);
      expect(run.result.permission_denials).toHaveLength(1);
      expect(
        gw.logs.audits().some((a) => a.rule === 'approve_tool_not_granted' && a.dialect === 'claude-code'),
      ).toBe(true);
    } finally {
      cleanup(run);
    }
  });

  it('approved:true for a tool inside approve_tools: it ran', async () => {
    const m = marker();
    approving();
    const run = await runClaude({
      command: `echo approved-${m} > marker.txt`,
      hooks: hooksFor('granted'),
      token: await gw.token(),
    });
    try {
      expect(readFileSync(join(run.project, 'marker.txt'), 'utf8').trim()).toBe(`approved-${m}`);
      expect(run.result.permission_denials).toEqual([]);
    } finally {
      cleanup(run);
    }
  });

  it('backend down with on_failure closed: the call is blocked', async () => {
    const m = marker();
    const run = await runClaude({
      command: `echo original-${m}`,
      hooks: hooksFor('down'),
      token: await gw.token(),
      allowedTools: ECHO,
    });
    try {
      expect(run.toolResults).toHaveLength(1);
      expect(run.toolResults[0].isError).toBe(true);
      expect(run.toolResults[0].content).toContain('hookgate: hook "down" failed');
      expect(run.toolResults[0].content).not.toContain(`original-${m}`);
    } finally {
      cleanup(run);
    }
  });

  it('a bad token with onFailure "block" (as setup prints it): the call is blocked', async () => {
    const m = marker();
    const hooks = hooksFor('strict');
    expect((hooks.PreToolUse[0] as any).hooks[0].onFailure).toBe('block');
    const run = await runClaude({
      command: `echo original-${m}`,
      hooks,
      token: 'not-a-valid-token',
      allowedTools: ECHO,
    });
    try {
      expect(run.toolResults).toHaveLength(1);
      expect(run.toolResults[0].isError).toBe(true);
      expect(run.toolResults[0].content).not.toContain(`original-${m}`);
      expect(recorder().calls).toEqual([]);
    } finally {
      cleanup(run);
    }
  });
});
