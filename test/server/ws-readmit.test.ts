import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { compileTestConfig, SECRET, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

/**
 * A WebSocket whose upgrade was verified under the keys a reload is about to remove, and that opens
 * after the reload swapped the config, must not carry a single call: it is re-checked against the
 * current config when it opens and before each call (src/server/ws-readmit.ts). Real gateway, real
 * `ws` clients, real JWTs.
 *
 * The tests hold the upgrades at a known point: the tenant's token is verified against a JWKS
 * endpoint the test serves, and the test answers that fetch only after the reload has finished. So
 * the upgrades are verified by the old keys and open under the new config, every time.
 */

const SECRET2 = 'second-secret-0123456789-abcdefghijklmnop';
const hook = {
  backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
  modes: ['tool'],
  tools: ['a'],
};
type Doc = { server?: object; tenants: Record<string, unknown> };

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  recorder().answer = () => ({ action: 'continue' });
});

async function start(doc: Doc) {
  const state = { current: doc };
  const gw = await startTestGateway(doc, {
    loadConfig: () => ({ config: compileTestConfig(state.current) }),
  });
  cleanups.push(() => gw.close());
  return { gw, state };
}

/** A JWKS endpoint that answers each fetch only when the test releases it. */
async function heldJwks() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'j1', alg: 'ES256', use: 'sig' };
  const waiting: ServerResponse[] = [];
  let requested!: () => void;
  const firstRequest = new Promise<void>((r) => {
    requested = r;
  });
  const server: Server = createServer((_req, res) => {
    waiting.push(res);
    requested();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    for (const res of waiting.splice(0)) res.destroy();
    return new Promise((r) => server.close(r));
  });
  const release = () => {
    for (const res of waiting.splice(0)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    }
  };
  const token = () =>
    new SignJWT({ tenant: 'acme', hooks: ['*'] })
      .setProtectedHeader({ alg: 'ES256', kid: 'j1' })
      .setAudience('hookgate')
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(privateKey);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return { url, firstRequest, release, token };
}

const hmacKey = (kid: 'k1' | 'k2') => ({ kid, alg: 'HS256', secret: kid === 'k1' ? SECRET : SECRET2 });

/**
 * Opens a socket, sends one call as soon as it is open, and reports how that ended: answered, or
 * the socket closed first (with its code), or the upgrade refused. Never waits on a timer.
 */
function callOnNewSocket(gw: TestGateway, hookName: string, bearer: string) {
  const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/${hookName}/ws`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  cleanups.push(() => ws.terminate());
  return new Promise<{ answered?: unknown; closed?: number; refused?: number }>((resolve) => {
    ws.once('open', () =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params: { tool: 'a' } })),
    );
    ws.on('message', (d) => {
      const msg = JSON.parse(d.toString());
      if (msg.id === 1) resolve({ answered: msg });
    });
    ws.once('close', (code) => resolve({ closed: code }));
    ws.once('unexpected-response', (_req, res) => resolve({ refused: res.statusCode }));
    ws.once('error', () => resolve({ closed: 1006 }));
  });
}

describe('a WebSocket whose upgrade raced a reload', () => {
  it('verified by a key the reload removed: closed with 1008, their calls never answered', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'should not be seen' } });
    const jwks = await heldJwks();
    const auth = (keys: unknown[]) => ({ auth: { keys }, hooks: { h: hook } });
    const { gw, state } = await start({
      tenants: { acme: auth([{ jwks_url: jwks.url, algs: ['ES256'] }, hmacKey('k1')]) },
    });

    // Upgrades are being verified by the JWKS key (its fetch is held)...
    const tokens = await Promise.all(Array.from({ length: 20 }, () => jwks.token()));
    const outcomes = Promise.all(tokens.map((t) => callOnNewSocket(gw, 'h', t)));
    await jwks.firstRequest;
    // ...while a reload removes that key and finishes.
    state.current = { tenants: { acme: auth([hmacKey('k1')]) } };
    expect(await gw.reload()).toMatchObject({ ok: true, summary: { tenants: { auth_changed: ['acme'] } } });
    // Now the old verifier gets its keys and admits the upgrades.
    jwks.release();

    // An upgrade verified by the old keys opens, sends its call and is closed with 1008 unanswered;
    // one that reached the gateway after the reload is refused. The first one is always of the
    // former kind (it is the one whose fetch was held); none is ever answered.
    const results = await outcomes;
    expect(results[0]).toEqual({ closed: 1008 });
    for (const r of results) expect([{ closed: 1008 }, { refused: 401 }]).toContainEqual(r);
    expect(recorder().calls).toEqual([]);
    // And the key is gone for new upgrades too.
    expect(await callOnNewSocket(gw, 'h', await jwks.token())).toEqual({ refused: 401 });
  });

  it('on a hook the reload removed: closed with 4004, its call never reaches a hook', async () => {
    const jwks = await heldJwks();
    const keys = [{ jwks_url: jwks.url, algs: ['ES256'] }];
    const { gw, state } = await start({
      tenants: { acme: { auth: { keys }, hooks: { h: hook, stay: hook } } },
    });

    const outcome = callOnNewSocket(gw, 'h', await jwks.token());
    await jwks.firstRequest;
    state.current = { tenants: { acme: { auth: { keys }, hooks: { stay: hook } } } };
    expect(await gw.reload()).toMatchObject({ ok: true, summary: { hooks: { removed: ['acme/h'] } } });
    jwks.release();

    const result = (await outcome) as { closed?: number; answered?: { error?: { message: string } } };
    // The close (4004) may come first, or the call's refusal naming why; never a hook's answer.
    expect([4004, 'hook removed from the gateway config']).toContain(
      result.closed ?? result.answered?.error?.message,
    );
    expect(recorder().calls).toEqual([]);
  });

  it('a call sent while a reload re-checks its socket waits for the verdict: closed with 1008, unanswered', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'should not be seen' } });
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const inline = { kid: 'a', alg: 'ES256', public_key: await exportJWK(publicKey) };
    const { gw, state } = await start({
      // One call may wait per socket; a second one is refused rather than held without bound.
      server: { max_in_flight: 1 },
      tenants: { acme: { auth: { keys: [inline] }, hooks: { h: hook } } },
    });
    const token = await new SignJWT({ tenant: 'acme', hooks: ['*'] })
      .setProtectedHeader({ alg: 'ES256', kid: 'a' })
      .setAudience('hookgate')
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(privateKey);
    const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/h/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    cleanups.push(() => ws.terminate());
    const messages: unknown[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    const closed = new Promise<number>((r) => ws.once('close', r));
    await new Promise((r) => ws.once('open', r));

    // The reload replaces key a by a JWKS whose fetch is held: the socket's re-check is under way.
    const jwks = await heldJwks();
    state.current = {
      server: { max_in_flight: 1 },
      tenants: { acme: { auth: { keys: [{ jwks_url: jwks.url, algs: ['ES256'] }] }, hooks: { h: hook } } },
    };
    const reloaded = gw.reload();
    await jwks.firstRequest;
    for (const id of [1, 2])
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'hook.before_tool', params: { tool: 'a' } }));
    // The pong comes after the gateway read the call (frames of one socket are read in order).
    ws.ping();
    await new Promise((r) => ws.once('pong', r));
    jwks.release();

    expect(await reloaded).toMatchObject({ ok: true });
    expect(await closed).toBe(1008);
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        error: expect.objectContaining({ message: 'too many calls in flight (limit 1)' }),
      },
    ]);
    expect(recorder().calls).toEqual([]);
  });
});
