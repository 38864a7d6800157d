import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/auth/errors.js';
import { TenantVerifier } from '../../src/auth/verifier.js';
import { compileConfig } from '../../src/config/compile.js';

const SECRET = 'verifier-test-secret-0123456789abcdefgh';

function tenant(keys: unknown[]) {
  const c = compileConfig({ tenants: { acme: { auth: { keys }, hooks: {} } } }, (r) => r);
  return c.tenants.get('acme')!;
}

const sign = (exp: number, extra: Record<string, unknown> = {}) =>
  new SignJWT({ tenant: 'acme', hooks: ['*'], ...extra })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience('hookgate')
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(SECRET));

describe('TenantVerifier', () => {
  it('caches a verified token until its exp, then verifies again (and refuses it)', async () => {
    const v = await TenantVerifier.create(tenant([{ alg: 'HS256', secret: SECRET }]), 100);
    const exp = Math.floor(Date.now() / 1000) + 60;
    const token = await sign(exp);
    const a = await v.verify(token);
    const b = await v.verify(token);
    expect(b).toBe(a);
    await expect(v.verify(token, exp + 1)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED', status: 401 });
  });

  it('authenticate answers a cached token at once (no promise), an unknown or expired one by verifying', async () => {
    const v = await TenantVerifier.create(tenant([{ alg: 'HS256', secret: SECRET }]), 100);
    const exp = Math.floor(Date.now() / 1000) + 60;
    const token = await sign(exp);
    const first = v.authenticate(token);
    expect(first).toBeInstanceOf(Promise);
    const principal = await first;
    expect(v.authenticate(token)).toBe(principal);
    const late = v.authenticate(token, exp + 1);
    expect(late).toBeInstanceOf(Promise);
    await expect(late).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    await expect(v.authenticate('not.a.jwt')).rejects.toBeInstanceOf(AuthError);
  });

  it('the token found last is answered as the cache answers it: not past its exp, not once evicted', async () => {
    const v = await TenantVerifier.create(tenant([{ alg: 'HS256', secret: SECRET }]), 1);
    const exp = Math.floor(Date.now() / 1000) + 60;
    const a = await sign(exp, { n: 'a' });
    const principal = await v.verify(a);
    // A string equal to the token, not the same string: what every HTTP request brings.
    const again = [...a].join('');
    expect(v.authenticate(again)).toBe(principal);
    const late = v.authenticate(again, exp + 1);
    expect(late).toBeInstanceOf(Promise);
    await expect(late).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    await v.verify(a);
    expect(v.authenticate(a)).toBe(v.cached(a));
    // Verifying another token evicts a (size 1): a is verified again, not answered from memory.
    await v.verify(await sign(exp, { n: 'b' }));
    const evicted = v.authenticate(a);
    expect(evicted).toBeInstanceOf(Promise);
    await evicted;
  });

  it('bounds the cache in size', async () => {
    const v = await TenantVerifier.create(tenant([{ alg: 'HS256', secret: SECRET }]), 2);
    const exp = Math.floor(Date.now() / 1000) + 60;
    for (let i = 0; i < 5; i++) await v.verify(await sign(exp, { n: i }));
    expect((v as unknown as { cache: Map<string, unknown> }).cache.size).toBe(2);
  });

  it('gives up on a slow JWKS endpoint within its timeout instead of hanging', async () => {
    const server = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    try {
      const v = await TenantVerifier.create(
        tenant([{ jwks_url: url, algs: ['RS256'], timeout_ms: 200 }]),
        10,
      );
      const { privateKey } = await generateKeyPair('RS256');
      const token = await new SignJWT({ tenant: 'acme', hooks: ['*'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'x' })
        .setAudience('hookgate')
        .setExpirationTime('5m')
        .sign(privateKey);
      const started = Date.now();
      const err = await v.verify(token).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect((err as AuthError).status).toBe(401);
      // Its own 200 ms, not the 5 s default (a bound far above the 200 ms, for a loaded machine).
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuses a token whose claims have the wrong types', async () => {
    const v = await TenantVerifier.create(tenant([{ alg: 'HS256', secret: SECRET }]), 10);
    const token = await sign(Math.floor(Date.now() / 1000) + 60, { hooks: 'weather' });
    await expect(v.verify(token)).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
  });
});
