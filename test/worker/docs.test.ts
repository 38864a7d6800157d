import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ORIGIN } from './helpers.js';

const worker = exports.default;

describe('the docs page in workerd', () => {
  it('serves the page with a same-origin CSP and the viewer from the bundle, not a CDN', async () => {
    const page = await worker.fetch(`${ORIGIN}/docs`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');

    const js = await worker.fetch(`${ORIGIN}/docs/assets/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    // The bundle's own text, not a module wrapper around it.
    const text = await js.text();
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(text).toContain('SwaggerUIBundle');

    const css = await worker.fetch(`${ORIGIN}/docs/assets/swagger-ui.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).toContain('.swagger-ui');
    expect((await worker.fetch(`${ORIGIN}/docs/assets/init.js`)).status).toBe(200);
  });
});
