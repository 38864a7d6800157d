import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumNote, launchChromium, SKIP_CHROMIUM } from '../../helpers/chromium.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { type Inbox, openInbox } from '../approval-inbox.js';
import { marker } from '../rules-config.js';
import {
  type AgentRun,
  bridgeHook,
  FakeModel,
  PicoClawHome,
  picoclawConfig,
  picoclawMissing,
} from './harness.js';

/**
 * A person decides a real PicoClaw's tool call in the gateway's approval inbox, in a real headless
 * Chromium with no network but the gateway (docs/approvals.md). PicoClaw gives a before_tool hook
 * 5 s but its approval 60 s (docs/policy.md), so the hook is wired for `approve_tool` only (a
 * `hookgate bridge` process hook intercepting just that; the gateway hook has only the `approve`
 * mode, `approval_timeout_ms` 50 s, inside both the bridge's 55 s and PicoClaw's 60 s). The
 * tenant's one rule holds every shell command naming "hookgate-ask-echo" for a person
 * (`ask_human`). The fake model asks for one `exec` that writes a marker file into the workspace.
 * Approved, PicoClaw runs it (the file appears); denied with a reason, it does not run and the
 * model's tool result carries the person's reason. The recording hook is never asked: the rule
 * decides.
 */
const missing = picoclawMissing();
const why = missing ? ` (skipped: ${missing})` : chromiumNote;

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

describe.skipIf(!!missing || SKIP_CHROMIUM)(
  `real PicoClaw: an approver decides its exec in the inbox, in headless Chromium${why}`,
  () => {
    let gw: TestGateway;
    let browser: Browser;
    let inbox: Inbox;
    const homes: PicoClawHome[] = [];
    const decisions = join(mkdtempSync(join(tmpdir(), 'hookgate-picoclaw-approvals-')), 'decisions.ndjson');

    beforeAll(async () => {
      recorder().calls.length = 0;
      // Were the hook asked, it would approve: only the person's decision can deny.
      recorder().answer = (method) =>
        method === 'hook.approve_tool' ? { approved: true } : { action: 'continue' };
      gw = await startTestGateway({
        server: { decisions: { to: `file:${decisions}` } },
        tenants: {
          acme: {
            ...tenantDoc({ guard: { ...rec, modes: ['approve'], approval_timeout_ms: 50_000 } }),
            rules: [ASK_FOR_ECHO],
          },
        },
      });
      browser = await launchChromium();
      inbox = await openInbox(browser, gw, 'acme', 'alice');
    }, 120_000);
    afterAll(async () => {
      console.log(`approval inbox screenshots (PicoClaw):\n  ${inbox?.shots.join('\n  ')}`);
      for (const h of homes) h.remove();
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

    /** Starts one PicoClaw turn whose model asks for `exec` of a command writing `<tag>.txt`. */
    async function ask(tag: string) {
      const calls: { name: string; arguments: Record<string, unknown> }[] = [];
      const model = new FakeModel(calls);
      await model.start();
      const token = await gw.token({ hooks: ['guard'] });
      let file = '';
      let command = '';
      const home = new PicoClawHome((dir) => {
        file = join(dir, 'workspace', `${tag}.txt`);
        command = `echo ${tag} > ${file}`;
        calls.push({ name: 'exec', arguments: { action: 'run', command } });
        return picoclawConfig(dir, model.url, {
          guard: bridgeHook({
            url: `${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/guard/ws`,
            token,
            intercept: ['approve_tool'],
          }),
        });
      });
      homes.push(home);
      const running = home.run('Run the command.', `hookgate-approvals-${tag}`, 90_000);
      const ended = running.then((run): never => {
        throw new Error(
          `PicoClaw ended before its request reached the inbox (exit ${run.code}): ${run.stdout.slice(-400)} ${run.stderr.slice(-400)}`,
        );
      });
      ended.catch(() => {});
      const card = await Promise.race([inbox.card(tag, 60_000), ended]);
      return { running, card, model, file, command };
    }

    it('approve: the request shows exec and the command; approved, PicoClaw runs it (the file appears) and finishes; the audit and the record name alice', async () => {
      const tag = `${ASK_MARK}-${marker()}`;
      recorder().calls.length = 0;
      const before = gw.logs.audits().length;
      const fromRecord = (await records()).length;
      const { running, card, model, file, command } = await ask(tag);
      let run: AgentRun | undefined;
      try {
        expect(await card.locator('.tool').textContent()).toBe('exec');
        expect(await card.locator('.args').textContent()).toContain(JSON.stringify(command));
        expect(await card.locator('.why').textContent()).toBe(ASK_REASON);
        expect(await card.textContent()).toContain('picoclaw');
        // Held: PicoClaw waits on the approval, the command has not run.
        expect(existsSync(file)).toBe(false);
        expect(inbox.page.url()).not.toContain(inbox.token.slice(0, 20));
        await inbox.shot('picoclaw-1-before-approve');

        await card.locator('.approve').click();
        await card.waitFor({ state: 'detached', timeout: 20_000 });
        await inbox.page.locator('#status', { hasText: 'Approved exec' }).waitFor({ timeout: 20_000 });
        await inbox.shot('picoclaw-2-after-approve');

        run = await running;
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
        expect(readFileSync(file, 'utf8').trim()).toBe(tag);
        expect(model.result(0)).not.toMatch(/denied|hook/i);
        expect(recorder().calls).toEqual([]);

        const audits = gw.logs.audits().slice(before);
        const decided = audits.filter((a) => a.event === 'approval approved');
        expect(decided).toEqual([
          expect.objectContaining({
            approver: 'alice',
            tenant: 'acme',
            hook: 'guard',
            host: 'picoclaw',
            tool: 'exec',
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
        if (!run) await running.catch(() => undefined);
        await model.close();
      }
    }, 180_000);

    it('deny: denied with a reason in the inbox, the command never runs and the model reads the reason; the audit and the record name alice', async () => {
      const tag = `${ASK_MARK}-${marker()}`;
      const reason = 'not during the freeze';
      recorder().calls.length = 0;
      const before = gw.logs.audits().length;
      const fromRecord = (await records()).length;
      const { running, card, model, file, command } = await ask(tag);
      let run: AgentRun | undefined;
      try {
        expect(await card.locator('.args').textContent()).toContain(JSON.stringify(command));
        await card.locator('.reason-input').fill(reason);
        await inbox.shot('picoclaw-3-before-deny');

        await card.locator('.deny').click();
        await card.waitFor({ state: 'detached', timeout: 20_000 });
        await inbox.page.locator('#status', { hasText: 'Denied exec' }).waitFor({ timeout: 20_000 });
        await inbox.shot('picoclaw-4-after-deny');

        run = await running;
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
        expect(existsSync(file)).toBe(false);
        expect(model.result(0)).toBe(`Tool execution denied by approval hook: denied by alice: ${reason}`);
        expect(recorder().calls).toEqual([]);

        const audits = gw.logs.audits().slice(before);
        const decided = audits.filter((a) => a.event === 'approval denied');
        expect(decided).toEqual([
          expect.objectContaining({ approver: 'alice', reason, host: 'picoclaw', tool: 'exec' }),
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
        if (!run) await running.catch(() => undefined);
        await model.close();
      }
    }, 180_000);
  },
);
