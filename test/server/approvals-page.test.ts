import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approverToken, bindingOf } from '../helpers/approvals.js';
import {
  chromiumNote,
  launchChromium,
  onDocsHost,
  SKIP_CHROMIUM,
  visitOffline,
} from '../helpers/chromium.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

/**
 * /approvals is the approval inbox: an approver signs in with a token, sees what waits, decides it.
 * Driven here in a real headless Chromium with every network but the gateway blocked.
 */

const hooks = { guard: { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } } };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ tenants: { acme: tenantDoc(hooks) } });
});
afterAll(() => gw?.close());

describe('/approvals over HTTP', () => {
  it('serves the page and its files under the strict same-origin CSP, with no inline script', async () => {
    const res = await fetch(`${gw.url}/approvals`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|unsafe-/);
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]| style=| on[a-z]+=/);
    const js = await fetch(`${gw.url}/approvals/assets/inbox.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const script = await js.text();
    expect(script).toContain('sessionStorage');
    // Values from requests are written as text, never as HTML.
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    const css = await fetch(`${gw.url}/approvals/assets/inbox.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });
});

describe.skipIf(SKIP_CHROMIUM)(`/approvals in a real headless Chromium, offline${chromiumNote}`, () => {
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), 'hookgate-approvals-'));
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());

  it('signs in with an approver token, shows a request, approves one and denies another with a reason, live', async () => {
    const token = await approverToken(gw.config, 'acme', 'alice');
    const first = gw.approvals.ask(await bindingOf('acme', { path: 'notes/today.md', text: 'hello' }), {
      args: { path: 'notes/today.md', text: 'hello' },
      reason: 'writes to the shared notes',
    });
    const visit = await visitOffline(browser, onDocsHost(`${gw.url}/approvals`));
    const { page } = visit;
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('#token').fill(token);
      await page.locator('#sign-in').click();
      const card = page.locator(`li.request[data-id="${first.id}"]`);
      await card.waitFor({ timeout: 20_000 });
      expect(await page.locator('#who').textContent()).toBe('alice @ acme');
      expect(await card.locator('.tool').textContent()).toBe('write_file');
      expect(await card.locator('.args').textContent()).toContain('"path": "notes/today.md"');
      expect(await card.locator('.why').textContent()).toBe('writes to the shared notes');
      expect(await card.textContent()).toContain('claude-code');
      // The token is in this tab's sessionStorage, not in the address.
      expect(page.url()).not.toContain(token.slice(0, 20));
      expect(await page.evaluate(() => sessionStorage.getItem('hookgate.approver-token'))).toBe(token);
      // On a phone-sized screen nothing scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const shot1 = join(shots, 'inbox-phone.png');
      await page.screenshot({ path: shot1, fullPage: true });

      await card.locator('.approve').click();
      expect(await first.outcome).toMatchObject({ decision: 'approved', approver: 'alice' });
      await card.waitFor({ state: 'detached' });

      // A request created while the page is open arrives over the live stream.
      const second = gw.approvals.ask(await bindingOf('acme', { command: 'rm -rf build' }), {
        args: { command: 'rm -rf build' },
      });
      const card2 = page.locator(`li.request[data-id="${second.id}"]`);
      await card2.waitFor({ timeout: 20_000 });
      await card2.locator('.reason-input').fill('not before the release');
      const shot2 = join(shots, 'inbox-deny.png');
      await page.screenshot({ path: shot2, fullPage: true });
      await card2.locator('.deny').click();
      expect(await second.outcome).toMatchObject({
        decision: 'denied',
        reason: 'not before the release',
        approver: 'alice',
      });
      await card2.waitFor({ state: 'detached' });
      await page.locator('#empty').waitFor({ state: 'visible' });
      const shot3 = join(shots, 'inbox-empty.png');
      await page.screenshot({ path: shot3, fullPage: true });
      console.log(`approval inbox screenshots:\n  ${shot1}\n  ${shot2}\n  ${shot3}`);

      expect(visit.outside).toEqual([]);
      expect(visit.problems).toEqual([]);
    } finally {
      await visit.close();
    }
  }, 60_000);

  it('refuses a hook token at sign-in with the gateway’s reason, and keeps nothing', async () => {
    const tenant = gw.config.tenants.get('acme')!;
    const { signDevToken } = await import('../../src/node/token.js');
    const hookToken = await signDevToken(tenant, { hooks: ['*'], ttlSeconds: 600 });
    const visit = await visitOffline(browser, onDocsHost(`${gw.url}/approvals`));
    try {
      await visit.page.locator('#token').fill(hookToken);
      await visit.page.locator('#sign-in').click();
      await visit.page.getByText('not an approver token').waitFor({ timeout: 20_000 });
      expect(await visit.page.evaluate(() => sessionStorage.getItem('hookgate.approver-token'))).toBeNull();
      expect(visit.outside).toEqual([]);
      // The refused stream is the one console error Chromium reports (a 403 on fetch).
      expect(visit.problems.filter((p) => !p.includes('403'))).toEqual([]);
    } finally {
      await visit.close();
    }
  }, 60_000);
});
