import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hookgate-setup-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config whose every secret is a reference nobody can resolve here: unset variables, missing files. */
function configFile(name: string, hookModes: unknown): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      server: {
        host: '127.0.0.1',
        port: 8787,
        admin_token: 'env:HOOKGATE_SETUP_UNSET_ADMIN',
        redis_url: 'env:HOOKGATE_SETUP_UNSET_REDIS',
      },
      tenants: {
        acme: {
          auth: {
            keys: [
              { kid: 'k1', alg: 'HS256', secret: 'env:HOOKGATE_SETUP_UNSET_SECRET' },
              { kid: 'k2', alg: 'EdDSA', public_key: 'file:no-such-key.pem' },
            ],
          },
          hooks: {
            guard: {
              backend: {
                type: 'http',
                url: 'https://hooks.example.com/guard',
                secret: ['env:HOOKGATE_SETUP_UNSET_WH'],
              },
              modes: hookModes,
              tools: ['get_weather'],
            },
            local: {
              backend: {
                type: 'stdio',
                command: ['python3', 'hook.py'],
                env: { API_KEY: 'file:no-such-file' },
              },
              modes: ['tool'],
            },
          },
        },
      },
    }),
  );
  return file;
}

const env = { PATH: process.env.PATH };

describe('hookgate setup reads no secret', () => {
  const config = configFile('hookgate.json', ['llm', 'tool', 'approve']);

  it.each(['picoclaw', 'claude-code', 'hermes', 'openclaw'])(
    'setup %s prints the settings with none of the secrets resolvable',
    async (host) => {
      for (const hook of ['guard', 'local']) {
        const r = await runCli(['setup', host, '--config', config, '--tenant', 'acme', '--hook', hook], {
          cwd: dir,
          env,
        });
        expect(r.code, r.err).toBe(0);
        expect(r.out).not.toContain('placeholder');
        expect(r.out).toContain(`/v1/tenants/acme/hooks/${hook}`);
      }
    },
  );

  it('while check-config, which starts nothing either but checks the secrets, names each one', async () => {
    const r = await runCli(['check-config', '--config', config], { cwd: dir, env });
    expect(r.code).toBe(1);
    for (const path of [
      'server.admin_token',
      'server.redis_url',
      'tenants.acme.auth.keys.0.secret',
      'tenants.acme.auth.keys.1.public_key',
      'tenants.acme.hooks.guard.backend.secret.0',
      'tenants.acme.hooks.local.backend.env.API_KEY',
    ])
      expect(r.err).toContain(path);
  });

  it('still refuses a config that is wrong, by its path', async () => {
    const bad = configFile('bad.json', ['tool', 'teleport']);
    const r = await runCli(['setup', 'hermes', '--config', bad, '--tenant', 'acme', '--hook', 'guard'], {
      cwd: dir,
      env,
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^hookgate setup: config error:\n {2}tenants\.acme\.hooks\.guard\.modes\.1: /);
  });
});
