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
 * A made-up host name the browser resolves to 127.0.0.1: pages opened under it prove they work off
 * `127.0.0.1` (a document or page that names 127.0.0.1 is then another origin, which the docs
 * page's CSP blocks).
 */
export const DOCS_HOST = 'gateway.hookgate.test';

/**
 * Chromium flags for a browser with no network but loopback: DOCS_HOST resolves to 127.0.0.1, every
 * other host name to nothing, and 127.0.0.1 is reached by address.
 */
export const OFFLINE_ARGS = [
  `--host-resolver-rules=MAP ${DOCS_HOST} 127.0.0.1 , MAP * ~NOTFOUND , EXCLUDE 127.0.0.1`,
];

/** `url` (on 127.0.0.1) with DOCS_HOST as its host name, same port. */
export function onDocsHost(url: string): string {
  const u = new URL(url);
  u.hostname = DOCS_HOST;
  return u.href;
}

/** What a page did while it rendered: requests that left loopback, and console errors (CSP included). */
export interface OfflineVisit {
  page: Page;
  outside: string[];
  problems: string[];
  close(): Promise<void>;
}

/**
 * Opens `url` in a fresh context where every request not for 127.0.0.1 or DOCS_HOST is aborted and
 * noted (belt and braces beside OFFLINE_ARGS), and console errors and page errors are collected.
 */
export async function visitOffline(browser: Browser, url: string): Promise<OfflineVisit> {
  const context = await browser.newContext();
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const target = new URL(route.request().url());
    const loopback = target.hostname === '127.0.0.1' || target.hostname === DOCS_HOST;
    if (loopback || target.protocol === 'data:') return route.continue();
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

/** What the docs page showed for a call it made itself. */
export interface TriedCall {
  /** The status code in Swagger UI's live response table. */
  status: string;
  /** The response body as the page shows it. */
  body: string;
}

/**
 * Uses the rendered docs page as a user would: Authorize with `token` (the `bearer` scheme), open
 * the describeHook operation, "Try it out", fill tenant and hook, Execute, and read the response
 * the page shows. A call the browser refuses (CSP, another origin) shows as "Failed to fetch".
 */
export async function tryDescribeHook(
  page: Page,
  call: { token: string; tenant: string; hook: string },
): Promise<TriedCall> {
  await page.locator('.auth-wrapper button.authorize').click();
  const bearer = page.locator('.auth-container').filter({ hasText: /^bearer\b/ });
  await bearer.locator('input').fill(call.token);
  await bearer.locator('button.authorize').click();
  // Applied: the form now offers Logout instead.
  await bearer.locator('button', { hasText: 'Logout' }).waitFor({ timeout: 10_000 });
  await bearer.locator('button.btn-done').click();

  const op = page.locator('#operations-default-describeHook');
  await op.locator('.opblock-summary').click();
  await op.getByRole('button', { name: 'Try it out' }).click();
  await op.locator('tr[data-param-name="tenant"] input').fill(call.tenant);
  await op.locator('tr[data-param-name="hook"] input').fill(call.hook);
  await op.getByRole('button', { name: 'Execute' }).click();

  const live = op.locator('.live-responses-table');
  const status = live.locator('tbody .response-col_status').first();
  await status.waitFor({ timeout: 20_000 });
  // Rendered with the status: the body (then the headers) as code blocks, or, for a call that never
  // got an answer, the browser's error as text.
  const description = live.locator('tbody .response-col_description').first();
  const blocks = description.locator('pre');
  return {
    status: (await status.innerText()).trim(),
    body: (await blocks.count()) > 0 ? await blocks.first().innerText() : await description.innerText(),
  };
}
