import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const SECRET = 'test-secret-0123456789-abcdefghijklmnop';
const WHSEC = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

function compile(approvals: unknown, env: Record<string, string> = {}) {
  return compileConfig(
    {
      tenants: {
        acme: {
          auth: { keys: [{ alg: 'HS256', secret: SECRET }] },
          hooks: { h: { backend: { type: 'module', module: 'x.js' } } },
          approvals,
        },
      },
    },
    (ref) => {
      if (!ref.startsWith('env:')) return ref;
      const v = env[ref.slice(4)];
      if (v === undefined) throw new Error(`environment variable ${ref.slice(4)} is not set`);
      return v;
    },
  );
}

function issuePaths(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => i.path);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('tenants.<name>.approvals', () => {
  it('compiles a webhook with its secret resolved, and defaults', () => {
    const config = compile(
      {
        webhook: { url: 'env:HOOK_URL', secret: 'env:HOOK_SECRET' },
        inbox_url: 'https://gw.example/approvals',
      },
      { HOOK_URL: 'https://hooks.example/in', HOOK_SECRET: WHSEC },
    );
    expect(config.tenants.get('acme')?.approvals).toEqual({
      webhook: { url: 'https://hooks.example/in', secrets: [WHSEC], format: 'standard', timeoutMs: 5_000 },
      inboxUrl: 'https://gw.example/approvals',
    });
  });

  it('is absent when not configured', () => {
    expect(compile(undefined).tenants.get('acme')?.approvals).toBeUndefined();
  });

  it('names every bad path', () => {
    expect(issuePaths(() => compile({ webhook: { url: 'https://x', format: 'teams' } }))).toEqual([
      'tenants.acme.approvals.webhook.format',
    ]);
    expect(issuePaths(() => compile({ webhook: { url: 'https://x' } }))).toEqual([
      'tenants.acme.approvals.webhook.secret',
    ]);
    expect(issuePaths(() => compile({ webhook: { url: 'env:MISSING', secret: 'not-whsec' } }))).toEqual([
      'tenants.acme.approvals.webhook.url',
      'tenants.acme.approvals.webhook.secret',
    ]);
    expect(issuePaths(() => compile({ inbox_url: 'javascript:alert(1)' }))).toEqual([
      'tenants.acme.approvals.inbox_url',
    ]);
    expect(issuePaths(() => compile({ webhok: {} }))).toEqual(['tenants.acme.approvals.webhok']);
  });
});
