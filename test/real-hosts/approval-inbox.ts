import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { approverToken } from '../helpers/approvals.js';
import { type OfflineVisit, onDocsHost, visitOffline } from '../helpers/chromium.js';
import type { TestGateway } from '../helpers/gateway.js';

/**
 * The approval inbox (`/approvals`) as an approver uses it, for the real-host approvals suites
 * (test/real-hosts/<host>/approvals*.test.ts): a headless Chromium with no network but the gateway
 * (test/helpers/chromium.ts), an approver token pasted into the sign-in form (never in the URL),
 * the request a real host's tool call parked found by what it shows, Approve or Deny clicked.
 * Screenshots go to a temp dir; `shots` lists them for the test output.
 */
export interface Inbox {
  page: Page;
  visit: OfflineVisit;
  /** The approver token the page signed in with. */
  token: string;
  /** Every screenshot taken, in order. */
  shots: string[];
  /** Waits (polling the page, up to `timeoutMs`) for the card whose arguments contain `text`. */
  card(text: string, timeoutMs?: number): Promise<Locator>;
  /** A full-page screenshot named `name`.png; returns its path. */
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openInbox(
  browser: Browser,
  gw: TestGateway,
  tenant: string,
  subject: string,
): Promise<Inbox> {
  const token = await approverToken(gw.config, tenant, subject);
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-approvals-host-'));
  const visit = await visitOffline(browser, onDocsHost(`${gw.url}/approvals`));
  const { page } = visit;
  await page.locator('#token').fill(token);
  await page.locator('#sign-in').click();
  await page.locator('#inbox').waitFor({ state: 'visible', timeout: 20_000 });
  const shots: string[] = [];
  return {
    page,
    visit,
    token,
    shots,
    async card(text, timeoutMs = 60_000) {
      const card = page.locator('li.request').filter({ has: page.locator('.args', { hasText: text }) });
      await card.first().waitFor({ timeout: timeoutMs });
      return card.first();
    },
    async shot(name) {
      const path = join(dir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      shots.push(path);
      return path;
    },
    close: () => visit.close(),
  };
}
