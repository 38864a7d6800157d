import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  chromiumNote,
  NO_CHROMIUM_REASON,
  OFFLINE_ARGS,
  SKIP_CHROMIUM,
} from '../helpers/chromium.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

/**
 * /docs is Swagger UI served by the gateway itself (swagger-ui-dist, pinned): it must render the
 * operations with no network but the gateway, under a CSP that names no other origin.
 */

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, modes: ['tool'] };
// The call route's summary in openapi.json, which only a rendered page shows.
const CALL_SUMMARY = 'Send one JSON-RPC message to a hook';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ tenants: { acme: tenantDoc({ tools: rec }) } });
});
afterAll(() => gw?.close());

describe('/docs over HTTP', () => {
  it('answers the page with a CSP that allows this origin only, and links no other origin', async () => {
    const res = await fetch(`${gw.url}/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|unsafe-eval/);
    expect(csp.match(/script-src [^;]*/)?.[0]).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    // No inline script: script-src 'self' would block it.
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  it('serves the pinned viewer files with their types', async () => {
    const js = await fetch(`${gw.url}/docs/assets/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await js.text()).toContain('SwaggerUIBundle');
    const css = await fetch(`${gw.url}/docs/assets/swagger-ui.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).toContain('.swagger-ui');
    expect((await fetch(`${gw.url}/docs/assets/other.js`)).status).toBe(404);
  });
});

describe.skipIf(SKIP_CHROMIUM)(`/docs in a real headless Chromium, offline${chromiumNote}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error(NO_CHROMIUM_REASON);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: OFFLINE_ARGS });
  }, 60_000);
  afterAll(() => browser?.close());

  it('renders the operations with the network blocked, with no CSP violation and no outside request', async () => {
    const context = await browser.newContext();
    const outside: string[] = [];
    // Belt and braces beside the resolver rules: anything not for the gateway is aborted and noted.
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
      outside.push(url.href);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));

    await page.goto(`${gw.url}/docs`);
    await page.getByText(CALL_SUMMARY).first().waitFor({ timeout: 20_000 });
    const text = await page.locator('body').innerText();
    expect(text).toContain('Prometheus metrics (admin token)');
    expect(text).toContain('/v1/tenants/{tenant}/hooks/{hook}');
    // Opening an operation renders its parameters and responses (more of the viewer's code runs).
    await page.getByText(CALL_SUMMARY).first().click();
    await page.getByText('Parameters').first().waitFor({ timeout: 10_000 });
    expect(await page.locator('.opblock.is-open').count()).toBe(1);
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
