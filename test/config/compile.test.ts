import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfigFile } from '../../src/node/config-loader.js';

const SECRET = 'config-test-secret-0123456789abcdefghij';

function issues(doc: unknown, env: Record<string, string> = {}): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-config-'));
  const file = join(dir, 'hookgate.yaml');
  writeFileSync(file, JSON.stringify(doc));
  try {
    loadConfigFile(file, env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

const tenant = (hooks: unknown, keys: unknown[] = [{ kid: 'k1', alg: 'HS256', secret: SECRET }]) => ({
  tenants: { acme: { auth: { keys }, hooks } },
});

describe('config validation', () => {
  it('names the path of a missing field', () => {
    expect(issues(tenant({ weather: { backend: { type: 'stdio' } } }))).toContain(
      'tenants.acme.hooks.weather.backend.command: required',
    );
  });

  it('names unknown keys (a typo must not silently drop a grant)', () => {
    expect(
      issues(
        tenant({ w: { backend: { type: 'module', module: 'x.js' }, grants: { rewrite_result: true } } }),
      ),
    ).toContain('tenants.acme.hooks.w.grants.rewrite_result: unknown key');
  });

  it('refuses an HS256 secret shorter than 32 bytes', () => {
    const out = issues(tenant({}, [{ alg: 'HS256', secret: 'short-secret' }]));
    expect(out).toEqual([
      expect.stringMatching(/^tenants\.acme\.auth\.keys\.0\.secret: HS256 secret must be at least 32 bytes/),
    ]);
  });

  it('counts the secret in UTF-8 bytes', () => {
    // 11 characters, 33 bytes.
    expect(issues(tenant({}, [{ alg: 'HS256', secret: '€€€€€€€€€€€' }]))).toEqual([]);
  });

  it('fails on an env: reference that is not set, and resolves one that is', () => {
    const doc = tenant({}, [{ alg: 'HS256', secret: 'env:ACME_HOOK_SECRET' }]);
    expect(issues(doc)).toEqual([
      'tenants.acme.auth.keys.0.secret: environment variable ACME_HOOK_SECRET is not set',
    ]);
    expect(issues(doc, { ACME_HOOK_SECRET: SECRET })).toEqual([]);
  });

  it('fails on an unreadable file: reference', () => {
    const out = issues(tenant({}, [{ kid: 'k2', alg: 'EdDSA', public_key: 'file:keys/missing.pem' }]));
    expect(out).toEqual(['tenants.acme.auth.keys.0.public_key: cannot read keys/missing.pem: ENOENT']);
  });

  it('refuses a private JWK where a public key belongs', () => {
    const out = issues(
      tenant({}, [{ alg: 'EdDSA', public_key: { kty: 'OKP', crv: 'Ed25519', x: 'a', d: 'b' } }]),
    );
    expect(out[0]).toMatch(/public_key: a private or symmetric JWK is not a public key/);
  });

  it('names every sandbox path that does not exist, resolved against the config dir', () => {
    const stdio = (sandbox: unknown) => ({ backend: { type: 'stdio', command: ['hook'], sandbox } });
    const out = issues(
      tenant({
        a: stdio({ read_paths: ['.', 'no/such/dir'], write_paths: ['/no/such/abs'] }),
        b: stdio({ read_paths: ['also-missing'] }),
      }),
    );
    expect(out).toEqual([
      expect.stringMatching(
        /^tenants\.acme\.hooks\.a\.backend\.sandbox\.read_paths\.1: no\/such\/dir does not exist \(\/.*\/no\/such\/dir\)$/,
      ),
      'tenants.acme.hooks.a.backend.sandbox.write_paths.0: /no/such/abs does not exist',
      expect.stringMatching(
        /^tenants\.acme\.hooks\.b\.backend\.sandbox\.read_paths\.0: also-missing does not exist/,
      ),
    ]);
  });

  it('sandboxes stdio hooks by default (server.sandbox auto, an outbound-only network of their own, nothing extra bound)', () => {
    const c = compileConfig(tenant({ w: { backend: { type: 'stdio', command: ['hook'] } } }), (r) => r);
    expect(c.server.sandbox).toBe('auto');
    expect(c.tenants.get('acme')!.hooks.get('w')!.backend).toMatchObject({
      sandbox: { read_paths: [], write_paths: [], network: 'outbound' },
    });
    expect(issues({ server: { sandbox: 'maybe' }, ...tenant({}) })[0]).toMatch(/^server\.sandbox: /);
  });

  it('gives every stdio hook process and memory limits by default, and names a bad one by its path', () => {
    const c = compileConfig(tenant({ w: { backend: { type: 'stdio', command: ['hook'] } } }), (r) => r);
    expect(c.tenants.get('acme')!.hooks.get('w')!.backend).toMatchObject({
      sandbox: { limits: { pids: 64, memory_mb: 512 } },
    });
    const limited = (limits: unknown) =>
      issues(tenant({ w: { backend: { type: 'stdio', command: ['hook'], sandbox: { limits } } } }));
    expect(limited({ pids: 16 })).toEqual([]);
    expect(limited({ pids: 0 })[0]).toMatch(/^tenants\.acme\.hooks\.w\.backend\.sandbox\.limits\.pids: /);
    expect(limited({ memory_mb: 'lots' })[0]).toMatch(
      /^tenants\.acme\.hooks\.w\.backend\.sandbox\.limits\.memory_mb: /,
    );
    expect(limited({ memory_mb: 8 })[0]).toMatch(/limits\.memory_mb: .*32/);
    expect(limited({ cpu: 1 })).toEqual(['tenants.acme.hooks.w.backend.sandbox.limits.cpu: unknown key']);
  });

  it('reports every problem at once', () => {
    const out = issues(
      tenant({ a: { backend: { type: 'stdio' } }, b: { backend: { type: 'http' } } }, [
        { alg: 'HS256', secret: 'x' },
      ]),
    );
    expect(out.length).toBeGreaterThanOrEqual(2);
  });

  it('applies the documented defaults', () => {
    const c = compileConfig(tenant({ w: { backend: { type: 'module', module: 'x.js' } } }), (r) => r);
    const hook = c.tenants.get('acme')!.hooks.get('w')!;
    expect(c.server).toMatchObject({ host: '127.0.0.1', port: 8787, maxBodyBytes: 8 * 1024 * 1024 });
    expect(c.tenants.get('acme')!.audience).toBe('hookgate');
    expect(hook).toMatchObject({ onViolation: 'strip', onFailure: 'open', timeoutMs: 4000 });
    expect([...hook.tools]).toEqual([]);
    expect(hook.grants).toMatchObject({ rewriteResults: false, conversationAccess: false });
  });
});

describe('server.admin_token', () => {
  const withAdmin = (ref: string) => ({ server: { admin_token: ref }, ...tenant({}) });

  it('must be a secret reference of at least 32 bytes', () => {
    expect(issues(withAdmin('a-literal-admin-token-0123456789-abcdefghij'))).toEqual([
      'server.admin_token: must be a secret reference (env:NAME or file:PATH), not the token',
    ]);
    expect(issues(withAdmin('env:ADMIN'), { ADMIN: 'too-short' })).toEqual([
      'server.admin_token: must be at least 32 bytes (got 9)',
    ]);
    expect(issues(withAdmin('env:ADMIN'))).toEqual([
      'server.admin_token: environment variable ADMIN is not set',
    ]);
    expect(issues(withAdmin('env:ADMIN'), { ADMIN: SECRET })).toEqual([]);
  });
});
