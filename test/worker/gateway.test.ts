import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { logLines } from './entry.js';
import { OTHER_KEY } from './fixtures.js';
import { beforeTool, HOOK_URL, ORIGIN, rpc, token } from './helpers.js';

const worker = exports.default;

async function post(body: unknown, bearer?: string): Promise<Response> {
  return worker.fetch(HOOK_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
}

describe('the gateway Worker in workerd', () => {
  it('serves health and the OpenAPI document', async () => {
    const health = await worker.fetch(`${ORIGIN}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const ready = await worker.fetch(`${ORIGIN}/readyz`);
    // No admin token in this config: readiness only, no tenant or hook names; /metrics disabled.
    expect(await ready.json()).toEqual({ ready: true });
    const admin = { headers: { authorization: 'Bearer some-admin-token-0123456789-abcdefghij' } };
    expect((await worker.fetch(`${ORIGIN}/metrics`, admin)).status).toBe(403);
    // No credentials: the challenge first, as on every route that takes a token.
    expect((await worker.fetch(`${ORIGIN}/metrics`)).status).toBe(401);
    const openapi = (await (await worker.fetch(`${ORIGIN}/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toMatch(/^3\./);
  });

  describe('auth', () => {
    it('answers 401 with WWW-Authenticate when the token is missing', async () => {
      const res = await post(rpc('hook.before_tool', beforeTool('get_weather', { city: 'Berlin' })));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="hookgate", error="invalid_token"/);
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    });

    it('answers 401 for a token signed with the wrong key, a malformed one and an expired one', async () => {
      for (const bad of [
        await token({ key: 'not-the-acme-key-0123456789-abcdefghijklmnopq' }),
        'not-a-jwt',
        await token({ ttl: -60 }),
      ]) {
        const res = await post(rpc('hook.before_tool', beforeTool('get_weather')), bad);
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    });

    it("answers 403 for another tenant's valid token", async () => {
      const other = await token({ tenant: 'other', kid: 'other-1', key: OTHER_KEY });
      // The same token is good on its own tenant...
      const own = await worker.fetch(`${ORIGIN}/v1/tenants/other/hooks/tools`, {
        headers: { authorization: `Bearer ${other}` },
      });
      expect(own.status).toBe(200);
      // ...and refused on acme's hook (it does not verify under acme's key: 401; a token that claims
      // tenant "other" but is signed with acme's key: 403).
      const crossSigned = await token({ tenant: 'other' });
      const res = await post(rpc('hook.before_tool', beforeTool('get_weather')), crossSigned);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'forbidden' } });
      const foreign = await post(rpc('hook.before_tool', beforeTool('get_weather')), other);
      expect(foreign.status).toBe(401);
    });

    it('answers 403 for a token that does not name this hook', async () => {
      const res = await post(
        rpc('hook.before_tool', beforeTool('get_weather')),
        await token({ hooks: ['x'] }),
      );
      expect(res.status).toBe(403);
    });

    it('refuses a token in the URL', async () => {
      const res = await worker.fetch(`${HOOK_URL}?access_token=${await token()}`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"');
    });
  });

  describe('policy', () => {
    it('passes a respond for one of the hook’s own tools', async () => {
      const res = await post(
        rpc('hook.before_tool', beforeTool('get_weather', { city: 'Berlin' }), 7),
        await token(),
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        result: {
          action: 'respond',
          result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
        },
      });
    });

    it('strips a respond for a tool not in the hook’s tools to continue', async () => {
      const res = await post(
        rpc('hook.before_tool', beforeTool('exec', { command: 'rm -rf /' }), 8),
        await token(),
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 8, result: { action: 'continue' } });
      const audit = logLines.map((l) => JSON.parse(l)).find((l) => l.audit?.tool === 'exec');
      expect(audit?.audit).toMatchObject({ tenant: 'acme', hook: 'tools', method: 'hook.before_tool' });
    });

    it('narrows by the token: a token without get_weather may not respond for it either', async () => {
      const res = await post(
        rpc('hook.before_tool', beforeTool('get_weather', { city: 'Paris' }), 9),
        await token({ hooks: ['tools'], tools: [] }),
      );
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 9, result: { action: 'continue' } });
    });

    it('describes the hook', async () => {
      const res = await worker.fetch(HOOK_URL, { headers: { authorization: `Bearer ${await token()}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        tenant: 'acme',
        hook: 'tools',
        modes: ['llm', 'tool'],
        tools: ['get_weather'],
        backend: { type: 'module', ready: true },
      });
    });
  });

  it('logs JSON lines and never a token', async () => {
    const secret = await token();
    await post(rpc('hook.before_tool', beforeTool('get_weather', { city: 'Berlin' })), secret);
    await post(rpc('hook.before_tool', beforeTool('get_weather')), `${secret}x`);
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) {
      const entry = JSON.parse(line);
      expect(entry.service).toBe('hookgate');
      expect(typeof entry.level).toBe('string');
    }
    // Built once for all the requests above (per isolate), not per request.
    expect(logLines.filter((l) => l.includes('"msg":"hookgate worker ready"'))).toHaveLength(1);
    const all = logLines.join('\n');
    expect(all).not.toContain(secret.split('.')[2]);
    expect(all).toContain('"msg":"request"');
  });
});
