import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const OTHER_SECRET = 'another-tenants-secret-0123456789abcdef';
const weatherHook = {
  backend: { type: 'module', module: 'examples/weather-sdk.ts' },
  tools: ['get_weather'],
};
const call = {
  jsonrpc: '2.0',
  id: 7,
  method: 'hook.before_tool',
  params: { tool: 'get_weather', arguments: { city: 'Berlin' } },
};

let gw: TestGateway;
let jwks: Server;
let jwksHits = 0;
const jwksDelayMs = 0;
let ed: Awaited<ReturnType<typeof generateKeyPair>>;
let rs: Awaited<ReturnType<typeof generateKeyPair>>;
let edPem: string;

const now = () => Math.floor(Date.now() / 1000);

function hs(
  claims: Record<string, unknown>,
  opts: {
    secret?: string | Uint8Array;
    aud?: string;
    iss?: string;
    exp?: number | null;
    nbf?: number;
    kid?: string;
  } = {},
) {
  const jwt = new SignJWT({ tenant: 'acme', hooks: ['weather'], ...claims })
    .setProtectedHeader({ alg: 'HS256', kid: opts.kid ?? 'k1' })
    .setAudience(opts.aud ?? 'hookgate')
    .setIssuer(opts.iss ?? 'https://id.acme.test');
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? now() + 600);
  if (opts.nbf) jwt.setNotBefore(opts.nbf);
  const key = opts.secret ?? SECRET;
  return jwt.sign(typeof key === 'string' ? new TextEncoder().encode(key) : key);
}

beforeAll(async () => {
  ed = await generateKeyPair('EdDSA', { extractable: true });
  rs = await generateKeyPair('RS256', { extractable: true });
  edPem = await exportSPKI(ed.publicKey);
  const rsJwk = { ...(await exportJWK(rs.publicKey)), kid: 'rs1', alg: 'RS256', use: 'sig' };
  jwks = createServer((_req, res) => {
    jwksHits++;
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [rsJwk] })),
      jwksDelayMs,
    );
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  gw = await startTestGateway({
    tenants: {
      acme: {
        auth: {
          issuer: 'https://id.acme.test',
          keys: [
            { kid: 'k1', alg: 'HS256', secret: SECRET },
            { kid: 'k2', alg: 'EdDSA', public_key: edPem },
            { jwks_url: jwksUrl, algs: ['RS256'], timeout_ms: 10_000 }, // a local server: far above its time
          ],
        },
        hooks: { weather: weatherHook, other: weatherHook },
      },
      globex: {
        auth: { keys: [{ kid: 'g1', alg: 'HS256', secret: OTHER_SECRET }] },
        hooks: { weather: weatherHook },
      },
    },
  });
});

afterAll(async () => {
  await gw?.close();
  jwks?.close();
});

async function status(token?: string, path = 'acme/hooks/weather') {
  const [tenant, , hook] = path.split('/');
  const res = await gw.post(tenant, hook, call, token);
  return {
    status: res.status,
    body: (await res.json().catch(() => null)) as any,
    www: res.headers.get('www-authenticate'),
  };
}

describe('HTTP auth', () => {
  it('accepts a valid HS256 token and answers the call', async () => {
    const r = await status(await hs({}));
    expect(r.status).toBe(200);
    expect(r.body.result.action).toBe('respond');
  });

  it('401 with WWW-Authenticate: Bearer when the token is missing', async () => {
    const r = await status();
    expect(r.status).toBe(401);
    expect(r.www).toMatch(/^Bearer realm="hookgate"/);
    expect(r.body.error.code).toBe('unauthorized');
  });

  it.each([
    ['garbage', async () => 'not.a.jwt'],
    [
      'alg none',
      async () =>
        new UnsecuredJWT({ tenant: 'acme', hooks: ['weather'] })
          .setAudience('hookgate')
          .setIssuer('https://id.acme.test')
          .setExpirationTime('10m')
          .encode(),
    ],
    ["another tenant's key", async () => hs({}, { secret: OTHER_SECRET })],
    ['expired', async () => hs({}, { exp: now() - 5 })],
    ['not yet valid', async () => hs({}, { nbf: now() + 300 })],
    ['without exp', async () => hs({}, { exp: null })],
    ['wrong audience', async () => hs({}, { aud: 'someone-else' })],
    ['wrong issuer', async () => hs({}, { iss: 'https://evil.test' })],
    ["HS256 signed with the EdDSA public key's bytes", async () => hs({}, { secret: edPem, kid: 'k2' })],
    [
      'an algorithm the key does not allow (ES256 under the EdDSA kid)',
      async () => {
        const es = await generateKeyPair('ES256');
        return new SignJWT({ tenant: 'acme', hooks: ['weather'] })
          .setProtectedHeader({ alg: 'ES256', kid: 'k2' })
          .setAudience('hookgate')
          .setIssuer('https://id.acme.test')
          .setExpirationTime('10m')
          .sign(es.privateKey);
      },
    ],
  ])('401 for a token that is %s', async (_name, make) => {
    const r = await status(await make());
    expect(r.status).toBe(401);
    expect(r.www).toMatch(/^Bearer /);
  });

  it("403 for a token of this tenant's key that names another tenant", async () => {
    expect((await status(await hs({ tenant: 'globex' }))).status).toBe(403);
  });

  it("403 for a hook outside the token's hooks claim; * allows every hook", async () => {
    expect((await status(await hs({ hooks: ['weather'] }), 'acme/hooks/other')).status).toBe(403);
    expect((await status(await hs({ hooks: ['*'] }), 'acme/hooks/other')).status).toBe(200);
  });

  it('401 (not 403) for a valid token of another tenant used here: it does not verify under these keys', async () => {
    const globexToken = await new SignJWT({ tenant: 'globex', hooks: ['weather'] })
      .setProtectedHeader({ alg: 'HS256', kid: 'g1' })
      .setAudience('hookgate')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(OTHER_SECRET));
    expect((await status(globexToken, 'globex/hooks/weather')).status).toBe(200);
    expect((await status(globexToken)).status).toBe(401);
  });

  it('accepts EdDSA tokens under the inline public key', async () => {
    const t = await new SignJWT({ tenant: 'acme', hooks: ['weather'] })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k2' })
      .setAudience('hookgate')
      .setIssuer('https://id.acme.test')
      .setExpirationTime('10m')
      .sign(ed.privateKey);
    expect((await status(t)).status).toBe(200);
  });

  it('accepts RS256 tokens from the JWKS URL, fetching the key set once', async () => {
    const sign = () =>
      new SignJWT({ tenant: 'acme', hooks: ['weather'], n: Math.random() })
        .setProtectedHeader({ alg: 'RS256', kid: 'rs1' })
        .setAudience('hookgate')
        .setIssuer('https://id.acme.test')
        .setExpirationTime('10m')
        .sign(rs.privateKey);
    const before = jwksHits;
    expect((await status(await sign())).status).toBe(200);
    expect((await status(await sign())).status).toBe(200);
    expect(jwksHits - before).toBeLessThanOrEqual(1);
  });

  it('never accepts a token in the query string, and never logs it', async () => {
    const token = await hs({});
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/weather?access_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toMatch(/not accepted/);
    expect(gw.logs.text).not.toContain(token);
    expect(gw.logs.text).not.toContain(token.split('.')[2]);
  });

  it('never writes a token or the Authorization header to the logs', async () => {
    const token = await hs({ n: 'log-check' });
    await status(token);
    await status(`${token}x`);
    expect(gw.logs.text).not.toContain(token.split('.')[2]);
    expect(gw.logs.text.toLowerCase()).not.toContain('bearer ey');
    expect(gw.logs.text).not.toContain(SECRET);
    expect(gw.logs.lines.some((l) => l.msg === 'request' && typeof l.request_id === 'string')).toBe(true);
  });
});
