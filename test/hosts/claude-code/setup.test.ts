import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hookgate-setup-'));
const config = join(dir, 'hookgate.yaml');
process.env.HOOKGATE_SETUP_TEST_SECRET = 'setup-test-secret-0123456789-abcdefghijkl';
writeFileSync(
  config,
  JSON.stringify({
    server: { host: '127.0.0.1', port: 8787 },
    tenants: {
      acme: {
        auth: { keys: [{ alg: 'HS256', secret: 'env:HOOKGATE_SETUP_TEST_SECRET' }] },
        hooks: {
          guard: {
            backend: { type: 'module', module: 'x.js' },
            modes: ['tool', 'approve'],
            on_failure: 'closed',
            timeout_ms: 4000,
            approval_timeout_ms: 55000,
          },
          watch: { backend: { type: 'module', module: 'x.js' }, modes: ['observe'] },
          prompts: { backend: { type: 'module', module: 'x.js' }, modes: ['llm'], on_failure: 'open' },
        },
      },
    },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `hookgate setup claude-code …` in this process, with its own streams. */
const run = (args: string[]) => runCli(['setup', 'claude-code', ...args], { cwd: dir });

describe('hookgate setup claude-code', () => {
  it('prints the hooks block for the events the hook’s modes cover, with timeouts and onFailure', async () => {
    const r = await run([
      '--config',
      config,
      '--tenant',
      'acme',
      '--hook',
      'guard',
      '--url',
      'https://gw.example/',
    ]);
    expect(r.code).toBe(0);
    const settings = JSON.parse(r.out);
    expect(Object.keys(settings.hooks)).toEqual(['PreToolUse', 'PermissionRequest', 'PostToolUse']);
    const url = 'https://gw.example/v1/tenants/acme/hooks/guard/claude-code';
    const base = {
      type: 'http',
      url,
      headers: { Authorization: 'Bearer $HOOKGATE_TOKEN' },
      allowedEnvVars: ['HOOKGATE_TOKEN'],
    };
    expect(settings.hooks.PreToolUse).toEqual([{ hooks: [{ ...base, timeout: 6, onFailure: 'block' }] }]);
    expect(settings.hooks.PermissionRequest).toEqual([
      { hooks: [{ ...base, timeout: 57, onFailure: 'block' }] },
    ]);
    // onFailure is for events that guard an action; the tool has already run on PostToolUse.
    expect(settings.hooks.PostToolUse).toEqual([{ hooks: [{ ...base, timeout: 6 }] }]);
    expect(r.err).toContain('HOOKGATE_TOKEN');
  });

  it('defaults the URL to the server’s host and port; an open hook without approvals gets no onFailure', async () => {
    const r = await run(['--config', config, '--tenant', 'acme', '--hook', 'prompts']);
    const settings = JSON.parse(r.out);
    expect(Object.keys(settings.hooks)).toEqual(['UserPromptSubmit']);
    const h = settings.hooks.UserPromptSubmit[0].hooks[0];
    expect(h.url).toBe('http://127.0.0.1:8787/v1/tenants/acme/hooks/prompts/claude-code');
    expect(h).not.toHaveProperty('onFailure');
    expect(h.timeout).toBeGreaterThan(4);
  });

  it('an observer gets the observed events, never SessionStart (no HTTP hooks there)', async () => {
    const settings = JSON.parse((await run(['--config', config, '--tenant', 'acme', '--hook', 'watch'])).out);
    expect(Object.keys(settings.hooks)).toContain('Stop');
    expect(Object.keys(settings.hooks)).not.toContain('SessionStart');
    expect(Object.keys(settings.hooks)).not.toContain('PreToolUse');
  });

  it('refuses missing flags and a URL that is not http(s) (exit 2), an unknown tenant or hook (exit 1), in one line', async () => {
    expect((await run(['--config', config, '--tenant', 'acme'])).code).toBe(2);
    const url = await run(['--config', config, '--tenant', 'acme', '--hook', 'guard', '--url', 'gw.example']);
    expect(url.code).toBe(2);
    expect(url.err).toMatch(/http/);
    const tenant = await run(['--config', config, '--tenant', 'nope', '--hook', 'guard']);
    expect(tenant.code).toBe(1);
    expect(tenant.err.trimEnd().split('\n')).toHaveLength(1);
    expect(tenant.err).toMatch(/no tenant/);
    const hook = await run(['--config', config, '--tenant', 'acme', '--hook', 'nope']);
    expect(hook.code).toBe(1);
    expect(hook.err).toMatch(/no hook/);
    const host = await runCli(['setup', 'cursor', '--config', config], { env: {}, cwd: dir });
    expect(host.code).toBe(2);
    expect(host.err).toContain('one of: picoclaw, claude-code, hermes, openclaw');
  });
});
