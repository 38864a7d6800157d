/**
 * /docs on Workers, as deployed: the Worker bundled by wrangler (scripts/worker-dry-run.sh, so
 * wrangler.toml's Text rules make the viewer's files modules of the upload), run by workerd through
 * miniflare on 127.0.0.1, and the page rendered in headless Chromium with no network but loopback,
 * then used under another host name to call the Worker through "Try it out".
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { Miniflare } from 'miniflare';
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

// workerd offline: no request.cf download, no telemetry.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const COMPATIBILITY_DATE = /^compatibility_date = "([0-9-]+)"/m.exec(
  await readFile(join(REPO, 'wrangler.toml'), 'utf8'),
)![1];
const KEY = 'docs-e2e-hs256-key-0123456789-abcdefghijklmn';
const CONFIG = {
  tenants: {
    acme: {
      auth: { keys: [{ kid: 'acme-1', alg: 'HS256', secret: 'env:ACME_KEY' }] },
      hooks: { weather: { backend: { type: 'module', module: 'examples/weather-hook.ts' } } },
    },
  },
};

describe.skipIf(SKIP_CHROMIUM)(`/docs on the Worker bundle, in headless Chromium${chromiumNote}`, () => {
  let outdir: string;
  let mf: Miniflare;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'hookgate-docs-worker-'));
    await promisify(execFile)('bash', ['scripts/worker-dry-run.sh', outdir], { cwd: REPO });
    // index.js imports the viewer's files by the names wrangler gave them (Text rule: text modules).
    const modules: Record<string, { type: 'esm' | 'text'; contents: string }> = {};
    for (const name of await readdir(outdir)) {
      if (name === 'index.js')
        modules[name] = { type: 'esm', contents: await readFile(join(outdir, name), 'utf8') };
      else if (/swagger-ui/.test(name) && !name.endsWith('.map'))
        modules[name] = { type: 'text', contents: await readFile(join(outdir, name), 'utf8') };
    }
    expect(Object.keys(modules).sort()).toHaveLength(3);
    mf = new Miniflare({
      host: '127.0.0.1',
      port: 0,
      cf: false,
      workers: [
        {
          config: {
            name: 'hookgate',
            compatibilityDate: COMPATIBILITY_DATE,
            manifest: { mainModule: 'index.js', modules },
            env: {
              HOOKGATE_CONFIG: { type: 'text', value: JSON.stringify(CONFIG) },
              ACME_KEY: { type: 'text', value: KEY },
            },
          },
        },
      ],
    });
    origin = (await mf.ready).origin;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await mf?.dispose();
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });

  it('renders the operations from the bundled viewer, with no CSP violation and no outside request', async () => {
    const page = await fetch(`${origin}/docs`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const visit = await visitOffline(browser, `${origin}/docs`);
    try {
      const text = await renderedDocs(visit.page);
      expect(text).toContain(CALL_SUMMARY);
      expect(visit.outside).toEqual([]);
      expect(visit.problems).toEqual([]);
    } finally {
      await visit.close();
    }
  }, 60_000);

  it(`"Try it out" calls the Worker serving the page, from a host name other than 127.0.0.1 (${DOCS_HOST})`, async () => {
    const token = await new SignJWT({ tenant: 'acme', hooks: ['weather'] })
      .setProtectedHeader({ alg: 'HS256', kid: 'acme-1', typ: 'JWT' })
      .setIssuedAt()
      .setAudience('hookgate')
      .setSubject('docs-e2e')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(KEY));
    const visit = await visitOffline(browser, onDocsHost(`${origin}/docs`));
    try {
      await renderedDocs(visit.page);
      const tried = await tryDescribeHook(visit.page, { token, tenant: 'acme', hook: 'weather' });
      expect(tried.body).not.toContain('Failed to fetch');
      expect(tried.status).toBe('200');
      expect(JSON.parse(tried.body)).toMatchObject({ tenant: 'acme', hook: 'weather' });
      expect(visit.outside).toEqual([]);
      expect(visit.problems).toEqual([]);
    } finally {
      await visit.close();
    }
  }, 60_000);
});
