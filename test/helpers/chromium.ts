import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Debian's chromium, driven by playwright-core (no browser of playwright's own). Tests that need it
 * skip, with the reason, when it is not installed, except in CI (CI set), which installs it
 * (`apt-get install chromium`): there a missing browser fails them instead of hiding them.
 */
const CANDIDATES = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
export const CHROMIUM = CANDIDATES.find((p): p is string => !!p && existsSync(p));
export const NO_CHROMIUM_REASON = 'chromium is not installed (apt-get install chromium, or set CHROMIUM)';
export const SKIP_CHROMIUM = !CHROMIUM && !process.env.CI;
/** For a describe title: why it is skipped, when it is. */
export const chromiumNote = SKIP_CHROMIUM ? ` (skipped: ${NO_CHROMIUM_REASON})` : '';

/**
 * Chromium flags for a browser with no network but loopback: every host name resolves to nothing,
 * and 127.0.0.1 is reached by address.
 */
export const OFFLINE_ARGS = ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'];

/** What a page did while it rendered: requests that left 127.0.0.1, and console errors (CSP included). */
export interface OfflineVisit {
  page: Page;
  outside: string[];
  problems: string[];
  close(): Promise<void>;
}

/**
 * Opens `url` in a fresh context where every request not for 127.0.0.1 is aborted and noted (belt
 * and braces beside OFFLINE_ARGS), and console errors and page errors are collected.
 */
export async function visitOffline(browser: Browser, url: string): Promise<OfflineVisit> {
  const context = await browser.newContext();
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const target = new URL(route.request().url());
    if (target.hostname === '127.0.0.1' || target.protocol === 'data:') return route.continue();
    outside.push(target.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  return { page, outside, problems, close: () => context.close() };
}

/** The call route's summary in openapi.json, which only a rendered docs page shows. */
export const CALL_SUMMARY = 'Send one JSON-RPC message to a hook';

/**
 * Waits for the docs page to render the operations, opens the call route's, and returns the page's
 * text. Throws (by timeout) when the viewer does not render.
 */
export async function renderedDocs(page: Page): Promise<string> {
  await page.getByText(CALL_SUMMARY).first().waitFor({ timeout: 20_000 });
  // Opening an operation renders its parameters and responses (more of the viewer's code runs).
  await page.getByText(CALL_SUMMARY).first().click();
  await page.getByText('Parameters').first().waitFor({ timeout: 10_000 });
  return page.locator('body').innerText();
}

/** The system chromium, headless, with no network but loopback. */
export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error(NO_CHROMIUM_REASON);
  return chromium.launch({ executablePath: CHROMIUM, args: OFFLINE_ARGS });
}
