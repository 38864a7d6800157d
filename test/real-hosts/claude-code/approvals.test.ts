import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeSettings } from '../../../src/hosts/claude-code/setup.node.js';
import { chromiumNote, launchChromium, SKIP_CHROMIUM } from '../../helpers/chromium.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { type Inbox, openInbox } from '../approval-inbox.js';
import { marker } from '../rules-config.js';
import {
  CLAUDE_BIN,
  CLAUDE_CODE_VERSION,
  type ClaudeRun,
  claudeInstalled,
  cleanup,
  runClaude,
} from './run-claude.js';

/**
 * A person decides a real Claude Code's tool call in the gateway's approval inbox, in a real
 * headless Chromium with no network but the gateway (docs/approvals.md). The tenant's one rule
 * holds every shell command naming "hookgate-ask-echo" for a person (`ask_human`), on the
 * PreToolUse the hook's settings send (its `timeout` there is the hook's `timeout_ms` plus 2 s,
 * both well above the time a test takes to click). The fake model asks for one Bash call that
 * writes a marker file into the project; `--allowedTools Bash` is Claude Code's own
 * permission, so what holds the command is the gateway alone. Approved, the command runs and the
 * file appears; denied with a reason, it does not run and the model reads the person's reason.
 */
const missing = `Claude Code ${CLAUDE_CODE_VERSION} is not installed at ${CLAUDE_BIN} (bash scripts/hosts/install.sh)`;
const why = !claudeInstalled ? ` (skipped: ${missing})` : chromiumNote;
if (!claudeInstalled && process.env.CI) {
  describe('Claude Code approvals in the inbox', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const ASK_MARK = 'hookgate-ask-echo';
const ASK_REASON = 'echo into a file needs a person';
const ASK_FOR_ECHO = {
  name: 'ask-for-echo',
  kind: 'shell',
  when: `call.command.contains("${ASK_MARK}")`,
  action: 'ask_human',
  reason: ASK_REASON,
};
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

describe.skipIf(!claudeInstalled || SKIP_CHROMIUM)(
  `Claude Code ${CLAUDE_CODE_VERSION}: an approver decides its tool call in the inbox, in headless Chromium${why}`,
  () => {
    if (!claudeInstalled) console.warn(`skipped: ${missing}`);
    let gw: TestGateway;
    let browser: Browser;
    let inbox: Inbox;
    const decisions = join(mkdtempSync(join(tmpdir(), 'hookgate-cc-approvals-')), 'decisions.ndjson');

    beforeAll(async () => {
      gw = await startTestGateway({
        server: { decisions: { to: `file:${decisions}` } },
        tenants: {
          acme: {
            ...tenantDoc({ guard: { ...rec, modes: ['tool'], timeout_ms: 120_000 } }),
            rules: [ASK_FOR_ECHO],
          },
        },
      });
      browser = await launchChromium();
      inbox = await openInbox(browser, gw, 'acme', 'alice');
    }, 120_000);
    afterAll(async () => {
      console.log(`approval inbox screenshots (Claude Code):\n  ${inbox?.shots.join('\n  ')}`);
      await inbox?.close();
      await browser?.close();
      await gw?.close();
    });

    const records = async (): Promise<Record<string, any>[]> => {
      await gw.decisions.flush();
      if (!existsSync(decisions)) return [];
      return readFileSync(decisions, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    };

    /** Starts Claude Code on `command` and waits for its request in the inbox (or its early end). */
    async function ask(command: string, tag: string) {
      const hooks = claudeCodeSettings(gw.config.tenants.get('acme')!.hooks.get('guard')!, gw.url).hooks;
      const pre = (hooks.PreToolUse as { hooks: { timeout: number }[] }[])[0].hooks[0];
      // Claude Code waits for the gateway longer than the gateway holds the call.
      expect(pre.timeout).toBeGreaterThanOrEqual(120);
      const running = runClaude({ command, hooks, token: await gw.token(), allowedTools: 'Bash' });
      const ended = running.then((run): never => {
        throw new Error(
          `Claude Code ended before its request reached the inbox: ${JSON.stringify(run.result).slice(0, 400)} ${run.stderr.slice(0, 400)}`,
        );
      });
      ended.catch(() => {});
      const card = await Promise.race([inbox.card(tag, 90_000), ended]);
      return { running, card };
    }

    it('approve: the request shows Bash and the command; approved, Claude Code runs it (the file appears) and finishes; the audit and the record name alice', async () => {
      const tag = `${ASK_MARK}-${marker()}`;
      const file = `${tag}.txt`;
      const command = `echo ${tag} > ${file}`;
      const before = gw.logs.audits().length;
      const fromRecord = (await records()).length;
      const { running, card } = await ask(command, tag);
      let run: ClaudeRun | undefined;
      try {
        expect(await card.locator('.tool').textContent()).toBe('Bash');
        expect(await card.locator('.args').textContent()).toContain(JSON.stringify(command));
        expect(await card.locator('.why').textContent()).toBe(ASK_REASON);
        expect(await card.textContent()).toContain('claude-code');
        // The token was pasted, never put in the address.
        expect(inbox.page.url()).not.toContain(inbox.token.slice(0, 20));
        await inbox.shot('claude-code-1-before-approve');

        await card.locator('.approve').click();
        await card.waitFor({ state: 'detached', timeout: 20_000 });
        await inbox.page.locator('#status', { hasText: 'Approved Bash' }).waitFor({ timeout: 20_000 });
        await inbox.shot('claude-code-2-after-approve');

        run = await running;
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.result.is_error).toBe(false);
        expect(run.result.permission_denials).toEqual([]);
        expect(run.toolResults).toEqual([{ content: expect.any(String), isError: false }]);
        expect(readFileSync(join(run.project, file), 'utf8').trim()).toBe(tag);

        const audits = gw.logs.audits().slice(before);
        const decided = audits.filter((a) => a.event === 'approval approved');
        expect(decided).toEqual([
          expect.objectContaining({
            approver: 'alice',
            tenant: 'acme',
            hook: 'guard',
            host: 'claude-code',
            tool: 'Bash',
          }),
        ]);
        const mine = (await records()).slice(fromRecord).filter((r) => r.approval);
        expect(mine).toEqual([
          expect.objectContaining({
            approval: expect.objectContaining({
              id: decided[0].approval,
              decision: 'approved',
              approver: 'alice',
            }),
          }),
        ]);
      } finally {
        if (!run) run = await running.catch(() => undefined);
        if (run) cleanup(run);
      }
    }, 240_000);

    it('deny: denied with a reason in the inbox, the command never runs and the model reads the reason; the audit and the record name alice', async () => {
      const tag = `${ASK_MARK}-${marker()}`;
      const file = `${tag}.txt`;
      const command = `echo ${tag} > ${file}`;
      const reason = 'not during the freeze';
      const before = gw.logs.audits().length;
      const fromRecord = (await records()).length;
      const { running, card } = await ask(command, tag);
      let run: ClaudeRun | undefined;
      try {
        expect(await card.locator('.args').textContent()).toContain(JSON.stringify(command));
        await card.locator('.reason-input').fill(reason);
        await inbox.shot('claude-code-3-before-deny');

        await card.locator('.deny').click();
        await card.waitFor({ state: 'detached', timeout: 20_000 });
        await inbox.page.locator('#status', { hasText: 'Denied Bash' }).waitFor({ timeout: 20_000 });
        await inbox.shot('claude-code-4-after-deny');

        run = await running;
        expect(existsSync(join(run.project, file))).toBe(false);
        expect(run.toolResults).toHaveLength(1);
        expect(run.toolResults[0].isError).toBe(true);
        // Claude Code shows a PreToolUse deny's reason to the model this way (test/fixtures/claude-code).
        expect(run.toolResults[0].content).toBe(`PreToolUse:Bash hook error: denied by alice: ${reason}`);
        expect(run.result.permission_denials).toHaveLength(1);

        const audits = gw.logs.audits().slice(before);
        const decided = audits.filter((a) => a.event === 'approval denied');
        expect(decided).toEqual([
          expect.objectContaining({ approver: 'alice', reason, host: 'claude-code', tool: 'Bash' }),
        ]);
        const mine = (await records()).slice(fromRecord).filter((r) => r.approval);
        expect(mine).toEqual([
          expect.objectContaining({
            approval: expect.objectContaining({
              id: decided[0].approval,
              decision: 'denied',
              approver: 'alice',
              reason,
            }),
          }),
        ]);
        expect(inbox.visit.outside).toEqual([]);
        expect(inbox.visit.problems).toEqual([]);
      } finally {
        if (!run) run = await running.catch(() => undefined);
        if (run) cleanup(run);
      }
    }, 240_000);
  },
);
