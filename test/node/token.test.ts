import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { isApprover } from '../../src/approvals/approver.js';
import { TenantVerifier } from '../../src/auth/verifier.js';
import { signDevToken } from '../../src/node/token.js';
import { runCli } from '../helpers/cli.js';
import { compileTestConfig, SECRET, tenantDoc } from '../helpers/gateway.js';

describe('development tokens', () => {
  const config = compileTestConfig({ tenants: { acme: tenantDoc({}) } });
  const tenant = config.tenants.get('acme')!;

  it('mints an approver token that verifies under the tenant’s keys, is an approver, and calls no hook', async () => {
    const token = await signDevToken(tenant, {
      hooks: ['*'],
      tools: ['Bash'],
      approver: true,
      subject: 'alice',
      ttlSeconds: 60,
    });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ tenant: 'acme', hooks: [], hookgate_role: 'approver', sub: 'alice' });
    expect(claims).not.toHaveProperty('tools');
    const principal = await (await TenantVerifier.create(tenant, 0)).verify(token);
    expect(isApprover(principal)).toBe(true);
    expect(principal.hooks.size).toBe(0);
  });

  it('mints an ordinary hook token that is not an approver', async () => {
    const token = await signDevToken(tenant, { hooks: ['*'], ttlSeconds: 60 });
    expect(decodeJwt(token)).not.toHaveProperty('hookgate_role');
    const principal = await (await TenantVerifier.create(tenant, 0)).verify(token);
    expect(isApprover(principal)).toBe(false);
  });
});

describe('hookgate token --approver', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-token-'));
  const file = join(dir, 'hookgate.json');
  writeFileSync(
    file,
    JSON.stringify({
      tenants: {
        acme: {
          auth: { keys: [{ alg: 'HS256', secret: SECRET }] },
          hooks: { h: { backend: { type: 'module', module: 'h.js' } } },
        },
      },
    }),
  );

  it('prints an approver token for the subject', async () => {
    const run = await runCli(
      ['token', '--config', file, '--tenant', 'acme', '--approver', '--subject', 'bob'],
      {
        cwd: dir,
      },
    );
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(decodeJwt(run.out.trim())).toMatchObject({ hooks: [], hookgate_role: 'approver', sub: 'bob' });
  });

  it('refuses --approver with --hooks (an approver token calls no hook)', async () => {
    const run = await runCli(['token', '--config', file, '--tenant', 'acme', '--approver', '--hooks', 'h'], {
      cwd: dir,
    });
    expect(run.code).not.toBe(0);
    expect(run.err).toContain('an --approver token takes no --hooks or --tools');
  });
});
