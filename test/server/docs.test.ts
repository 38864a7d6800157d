import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CALL_SUMMARY,
  chromiumNote,
  DOCS_HOST,
  launchChromium,
  onDocsHost,
  renderedDocs,
  SKIP_CHROMIUM,
  tryDescribeHook,
  visitOffline,
} from '../helpers/chromium.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

/**
 * /docs is Swagger UI served by the gateway itself (swagger-ui-dist, pinned): it must render the
 * operations with no network but the gateway, under a CSP that names no other origin.
 */

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, modes: ['tool'] };

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
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());

  it('renders the operations with the network blocked, with no CSP violation and no outside request', async () => {
    const visit = await visitOffline(browser, `${gw.url}/docs`);
    try {
      const text = await renderedDocs(visit.page);
      expect(text).toContain(CALL_SUMMARY);
      expect(text).toContain('Prometheus metrics (admin token)');
      expect(text).toContain('/v1/tenants/{tenant}/hooks/{hook}');
      expect(await visit.page.locator('.opblock.is-open').count()).toBe(1);
      expect(visit.outside).toEqual([]);
      expect(visit.problems).toEqual([]);
    } finally {
      await visit.close();
    }
  }, 60_000);

  it(`"Try it out" calls the gateway serving the page, from a host name other than 127.0.0.1 (${DOCS_HOST}) on a random port`, async () => {
    const visit = await visitOffline(browser, onDocsHost(`${gw.url}/docs`));
    try {
      await renderedDocs(visit.page);
      const tried = await tryDescribeHook(visit.page, {
        token: await gw.token(),
        tenant: 'acme',
        hook: 'tools',
      });
      expect(tried.body).not.toContain('Failed to fetch');
      expect(tried.status).toBe('200');
      expect(JSON.parse(tried.body)).toMatchObject({ tenant: 'acme', hook: 'tools' });
      expect(visit.outside).toEqual([]);
      expect(visit.problems).toEqual([]);
    } finally {
      await visit.close();
    }
  }, 60_000);
});
