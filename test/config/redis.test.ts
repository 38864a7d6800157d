import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const KEY = { kid: 'k1', alg: 'HS256', secret: 'redis-test-secret-0123456789abcdefghijk' };
const tenants = {
  acme: { auth: { keys: [KEY] }, hooks: { w: { backend: { type: 'module', module: 'x.js' } } } },
};
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

/** References resolve from `refs` (env:NAME and file:PATH alike); anything else is literal. */
function compile(server: object, refs: Record<string, string> = {}) {
  return compileConfig({ server, tenants }, (ref) => {
    if (!ref.startsWith('env:') && !ref.startsWith('file:')) return ref;
    const v = refs[ref];
    if (v === undefined) throw new Error(`${ref} is not set`);
    return v;
  });
}

function issues(server: object, refs: Record<string, string> = {}): string[] {
  try {
    compile(server, refs);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('server.redis_url', () => {
  it('resolves as a secret reference and never quotes the URL in an error', () => {
    const url = 'rediss://:hunter2-password@cache.internal:6380/2';
    expect(compile({ redis_url: 'env:REDIS_URL' }, { 'env:REDIS_URL': url }).server.redisUrl).toBe(url);
    expect(issues({ redis_url: 'env:REDIS_URL' })).toEqual(['server.redis_url: env:REDIS_URL is not set']);
    for (const [bad, why] of [
      ['http://:hunter2-password@cache.internal', 'must start with redis:// or rediss://'],
      ['hunter2-password', 'not a URL'],
      ['rediss://:hunter2-password@cache.internal/abc', 'the path must be a database number'],
      ['redis://:hunter2-password@cache.internal:6379', 'carries a password over plain redis://'],
    ]) {
      const out = issues({ redis_url: 'env:REDIS_URL' }, { 'env:REDIS_URL': bad });
      expect(out).toHaveLength(1);
      expect(out[0]).toContain(`server.redis_url: ${why}`);
      expect(out.join()).not.toContain('hunter2');
    }
  });

  it('refuses a password over plain TCP off loopback, and allows it on loopback or over TLS', () => {
    for (const host of ['10.0.0.5', 'redis.internal', '[fd00::1]', '127.0.0.1.nip.io']) {
      expect(issues({ redis_url: `redis://:pw@${host}:6379` })[0]).toContain('use rediss://');
    }
    for (const url of [
      'redis://:pw@127.0.0.1:6379',
      'redis://:pw@127.8.9.10',
      'redis://user:pw@localhost:6379/1',
      'redis://:pw@[::1]:6379',
      'redis://redis.internal:6379', // no password: nothing to steal (the config's choice)
      'rediss://:pw@redis.internal:6380',
    ]) {
      expect(issues({ redis_url: url }), url).toEqual([]);
    }
  });
});

describe('server.redis_tls', () => {
  it('pins a CA read from a reference, with the name the certificate must carry', () => {
    const config = compile(
      {
        redis_url: 'rediss://:pw@10.0.0.5:6380',
        redis_tls: { ca: 'file:ca.pem', servername: 'redis.internal' },
      },
      { 'file:ca.pem': PEM },
    );
    expect(config.server.redisTls).toEqual({ ca: PEM, servername: 'redis.internal' });
  });

  it('says what is wrong: no TLS URL, an inline certificate, not PEM, a missing file, unknown keys', () => {
    expect(issues({ redis_tls: { ca: 'file:ca.pem' } }, { 'file:ca.pem': PEM })).toEqual([
      'server.redis_tls: needs server.redis_url',
    ]);
    expect(issues({ redis_url: 'redis://127.0.0.1', redis_tls: { servername: 'x' } })).toEqual([
      'server.redis_tls: needs a rediss:// server.redis_url (TLS)',
    ]);
    const url = 'rediss://127.0.0.1:6380';
    expect(issues({ redis_url: url, redis_tls: { ca: PEM } })[0]).toMatch(
      /^server\.redis_tls\.ca: must be a reference to PEM \(file:PATH or env:NAME\)/,
    );
    expect(issues({ redis_url: url, redis_tls: { ca: 'env:CA' } }, { 'env:CA': 'not a cert' })).toEqual([
      'server.redis_tls.ca: is not a PEM certificate (-----BEGIN CERTIFICATE-----)',
    ]);
    expect(issues({ redis_url: url, redis_tls: { ca: 'file:missing.pem' } })).toEqual([
      'server.redis_tls.ca: file:missing.pem is not set',
    ]);
    expect(issues({ redis_url: url, redis_tls: { ca: 'file:ca.pem', verify: false } })[0]).toContain(
      'server.redis_tls',
    );
  });
});
