import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { compileTestConfig, SECRET, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

/**
 * Reload semantics inside one process (the e2e test drives SIGHUP and /admin/reload on a real
 * one): what happens to open WebSockets when their hook changes, their tenant's keys change, or
 * their tenant goes away, and a module that does not load.
 */

const SECRET2 = 'second-secret-0123456789-abcdefghijklmnop';
const rec = (tools: string[] = ['a']) => ({
  backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
  modes: ['tool'],
  tools,
});
type Doc = { server?: object; tenants: Record<string, unknown> };
const tenant = (hooks: Record<string, unknown>, kids: ('k1' | 'k2')[] = ['k1', 'k2']) => ({
  auth: {
    keys: kids.map((kid) => ({ kid, alg: 'HS256', secret: kid === 'k1' ? SECRET : SECRET2 })),
  },
  hooks,
});

const gateways: TestGateway[] = [];
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close();
  recorder().answer = () => ({ action: 'continue' });
});

/** A gateway whose "config file" is the variable `current`. */
async function start(doc: Doc) {
  const state = { current: doc };
  const gw = await startTestGateway(doc, {
    loadConfig: () => ({ config: compileTestConfig(state.current) }),
  });
  gateways.push(gw);
  return { gw, state };
}

async function token(t: string, kid: 'k1' | 'k2'): Promise<string> {
  return new SignJWT({ tenant: t, hooks: ['*'] })
    .setProtectedHeader({ alg: 'HS256', kid })
    .setAudience('hookgate')
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(kid === 'k1' ? SECRET : SECRET2));
}

async function open(gw: TestGateway, t: string, hook: string, bearer: string) {
  const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/${t}/hooks/${hook}/ws`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
  );
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  let id = 1;
  const respond = async (tool: string) => {
    const n = id++;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: n, method: 'hook.before_tool', params: { tool } }));
    await expect.poll(() => messages.find((m) => m.id === n)).toBeTruthy();
    return messages.find((m) => m.id === n);
  };
  return { ws, messages, closed, respond };
}

describe('reload and open WebSockets', () => {
  it('a socket on a changed hook goes on with the new config; one on an unchanged hook is untouched', async () => {
    recorder().answer = (_m, p) => ({ action: 'respond', result: { for_llm: `hi ${p.tool}` } });
    const { gw, state } = await start({ tenants: { acme: tenant({ h: rec(['a']), same: rec(['a']) }) } });
    const t = await token('acme', 'k1');
    const changed = await open(gw, 'acme', 'h', t);
    const same = await open(gw, 'acme', 'same', t);
    // Tool b is not the hook's own: its respond is refused (continue).
    expect((await changed.respond('b')).result).toEqual({ action: 'continue' });
    const sameBackend = gw.live.current.backends.get(gw.live.hook('acme', 'same')!);

    state.current = { tenants: { acme: tenant({ h: rec(['a', 'b']), same: rec(['a']) }) } };
    const outcome = await gw.reload();
    expect(outcome).toMatchObject({
      ok: true,
      summary: { hooks: { changed: ['acme/h'], unchanged: ['acme/same'] } },
    });
    expect((await changed.respond('b')).result).toEqual({ action: 'respond', result: { for_llm: 'hi b' } });
    expect((await same.respond('a')).result).toEqual({ action: 'respond', result: { for_llm: 'hi a' } });
    expect(gw.live.current.backends.get(gw.live.hook('acme', 'same')!)).toBe(sameBackend);
    expect(gw.sessions.size).toBe(2);
  });

  it('a tenant whose keys changed: sockets whose token still verifies stay, the others close with 1008', async () => {
    const { gw, state } = await start({ tenants: { acme: tenant({ h: rec() }) } });
    const kept = await open(gw, 'acme', 'h', await token('acme', 'k1'));
    const dropped = await open(gw, 'acme', 'h', await token('acme', 'k2'));

    state.current = { tenants: { acme: tenant({ h: rec() }, ['k1']) } };
    expect(await gw.reload()).toMatchObject({ ok: true, summary: { tenants: { auth_changed: ['acme'] } } });
    expect(await dropped.closed).toEqual({ code: 1008, reason: 'token no longer accepted' });
    expect((await kept.respond('a')).result).toEqual({ action: 'continue' });
    expect(kept.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('a removed tenant: its sockets close with 4004 and its tokens get the unknown-tenant 401', async () => {
    const { gw, state } = await start({
      tenants: { acme: tenant({ h: rec() }), other: tenant({ h: rec() }) },
    });
    const t = await token('other', 'k1');
    const sock = await open(gw, 'other', 'h', t);
    state.current = { tenants: { acme: tenant({ h: rec() }) } };
    expect(await gw.reload()).toMatchObject({ ok: true, summary: { tenants: { removed: ['other'] } } });
    expect(await sock.closed).toEqual({ code: 4004, reason: 'tenant removed from the gateway config' });
    expect((await gw.post('other', 'h', { jsonrpc: '2.0', id: 1, method: 'hook.hello' }, t)).status).toBe(
      401,
    );
  });

  it('a module that does not load: nothing changes, and the path is named', async () => {
    const { gw, state } = await start({ tenants: { acme: tenant({ h: rec() }) } });
    const before = gw.live.current;
    state.current = {
      tenants: {
        acme: tenant({
          h: rec(['changed']),
          bad: { backend: { type: 'module', module: 'test/helpers/no-such-module.ts' } },
          worse: { backend: { type: 'module', module: 'test/helpers/also-missing.ts' } },
        }),
      },
    };
    const outcome = await gw.reload();
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.issues.map((i) => i.path)).toEqual([
      'tenants.acme.hooks.bad.backend.module',
      'tenants.acme.hooks.worse.backend.module',
    ]);
    expect(gw.live.current).toBe(before);
    expect(gw.logs.lines.find((l) => l.msg === 'config reload refused; nothing changed')).toMatchObject({
      paths: ['tenants.acme.hooks.bad.backend.module', 'tenants.acme.hooks.worse.backend.module'],
    });
  });
});
