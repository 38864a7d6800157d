import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

/**
 * /metrics and the details of /readyz name every tenant and hook, which the hook routes' auth
 * takes care not to reveal: they need the admin token. /healthz stays open.
 */

const ADMIN = 'admin-test-token-0123456789-abcdefghijklmnop';
process.env.HOOKGATE_TEST_ADMIN_TOKEN = ADMIN;
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, modes: ['tool'] };

const get = (gw: TestGateway, path: string, bearer?: string) =>
  fetch(`${gw.url}${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

describe('with server.admin_token', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      server: { admin_token: 'env:HOOKGATE_TEST_ADMIN_TOKEN' },
      tenants: { 'secret-tenant': tenantDoc({ 'secret-hook': rec }) },
    });
    await gw.call('secret-hook', 'hook.before_tool', { tool: 'x' });
  });
  afterAll(() => gw?.close());

  it('/metrics answers 401 with WWW-Authenticate without the admin token, and the metrics with it', async () => {
    for (const bearer of [undefined, 'not-the-admin-token-0123456789-abcdefghijk', await gw.token()]) {
      const res = await get(gw, '/metrics', bearer);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="hookgate-admin"/);
      expect(await res.text()).not.toContain('secret-tenant');
    }
    const ok = await get(gw, '/metrics', ADMIN);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/hookgate_calls_total\{tenant="secret-tenant",hook="secret-hook"/);
  });

  it('/readyz says only whether it is ready without the admin token, and which hook is not with it', async () => {
    const anon = await get(gw, '/readyz');
    expect(anon.status).toBe(200);
    expect(await anon.json()).toEqual({ ready: true });
    const admin = await get(gw, '/readyz', ADMIN);
    expect(await admin.json()).toEqual({ ready: true, not_ready: [] });
    expect((await get(gw, '/readyz', 'not-the-admin-token-0123456789-abcdefghijk')).status).toBe(401);
    expect(await (await get(gw, '/healthz')).json()).toEqual({ ok: true });
  });

  it('never logs the admin token', async () => {
    await get(gw, '/metrics', ADMIN);
    expect(gw.logs.text).not.toContain(ADMIN);
  });

  it('POST /admin/reload needs the admin token, and says when there is no file to re-read', async () => {
    const anon = await fetch(`${gw.url}/admin/reload`, { method: 'POST' });
    expect(anon.status).toBe(401);
    const res = await fetch(`${gw.url}/admin/reload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).issues[0].message).toMatch(/not started from a config file/);
  });
});

describe('without server.admin_token', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // The test helper gives every gateway an admin token; this one must have none.
    gw = await startTestGateway({
      server: { admin_token: undefined },
      tenants: { acme: tenantDoc({ h: rec }) },
    });
  });
  afterAll(() => gw?.close());

  it('disables the admin routes (not open) and says so at startup', async () => {
    const metrics = await get(gw, '/metrics', 'anything-at-all-0123456789-abcdefghijklmn');
    expect(metrics.status).toBe(403);
    expect(((await metrics.json()) as any).error.message).toMatch(/server\.admin_token/);
    const reload = await fetch(`${gw.url}/admin/reload`, {
      method: 'POST',
      headers: { authorization: 'Bearer anything-at-all-0123456789-abcdefghijklmn' },
    });
    expect(reload.status).toBe(403);
    // No credentials at all: the challenge every route that takes a token gives, as documented.
    for (const res of [
      await get(gw, '/metrics'),
      await fetch(`${gw.url}/admin/reload`, { method: 'POST' }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="hookgate-admin"/);
    }
    expect(await (await get(gw, '/readyz')).json()).toEqual({ ready: true });
    expect(gw.logs.lines.find((l) => /admin routes disabled/.test(l.msg))).toMatchObject({ level: 'warn' });
  });
});
