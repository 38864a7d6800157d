import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownCommand, shellJoin } from '../../../src/node/cli/own-command.js';
import { runCli } from '../../helpers/cli.js';
import { exchange } from '../../helpers/command-host-fixtures.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';

/** This Node and this hookgate's path, as one command line: what setup prints unless --command says otherwise. */
const HOOKGATE = shellJoin(ownCommand());
const SECRET_TOKEN = 'tok-that-must-not-be-printed-0123456789';

const dir = mkdtempSync(join(tmpdir(), 'hookgate-setup-cli-hosts-'));
const config = join(dir, 'hookgate.yaml');
process.env.HOOKGATE_SETUP_CLI_SECRET = 'setup-test-secret-0123456789-abcdefghijkl';
const module = { type: 'module', module: 'x.js' };
writeFileSync(
  config,
  JSON.stringify({
    server: { host: '127.0.0.1', port: 8787 },
    tenants: {
      acme: {
        auth: { keys: [{ alg: 'HS256', secret: 'env:HOOKGATE_SETUP_CLI_SECRET' }] },
        hooks: {
          guard: { backend: module, modes: ['tool'], on_failure: 'closed', timeout_ms: 4000 },
          approver: {
            backend: module,
            modes: ['approve'],
            on_failure: 'open',
            timeout_ms: 2000,
            approval_timeout_ms: 20000,
          },
        },
      },
    },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (host: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(['setup', host, '--config', config, '--tenant', 'acme', ...args], {
    cwd: dir,
    env: { ...process.env, HOOKGATE_TOKEN: SECRET_TOKEN, ...env },
  });

const URL_BASE = 'https://gw.example.com';
const GUARD = `${URL_BASE}/v1/tenants/acme/hooks/guard`;

/** Codex's trust hash as its README describes it, computed independently of the code under test. */
function codexHash(event: string, command: string, timeout: number): string {
  const json = `{"event_name":${JSON.stringify(event)},"hooks":[{"async":false,"command":${JSON.stringify(command)},"timeout":${timeout},"type":"command"}],"matcher":"*"}`;
  return `sha256:${createHash('sha256').update(json).digest('hex')}`;
}

describe('hookgate setup codex', () => {
  it('prints trusted config.toml hooks: fail-closed PreToolUse, PostToolUse, each with its trust entry', async () => {
    const r = await run('codex', ['--hook', 'guard', '--url', URL_BASE], { CODEX_HOME: '/srv/codex-home' });
    expect(r.code).toBe(0);
    const pre = `${HOOKGATE} hook --host codex --url ${GUARD} --timeout-ms 5000 --fail-closed`;
    const post = `${HOOKGATE} hook --host codex --url ${GUARD} --timeout-ms 5000`;
    expect(r.out).toBe(
      [
        '[[hooks.PreToolUse]]',
        'matcher = "*"',
        '[[hooks.PreToolUse.hooks]]',
        'type = "command"',
        `command = ${JSON.stringify(pre)}`,
        'timeout = 7',
        '',
        '[[hooks.PostToolUse]]',
        'matcher = "*"',
        '[[hooks.PostToolUse.hooks]]',
        'type = "command"',
        `command = ${JSON.stringify(post)}`,
        'timeout = 7',
        '',
        '[hooks.state."/srv/codex-home/config.toml:pre_tool_use:0:0"]',
        `trusted_hash = "${codexHash('pre_tool_use', pre, 7)}"`,
        '',
        '[hooks.state."/srv/codex-home/config.toml:post_tool_use:0:0"]',
        `trusted_hash = "${codexHash('post_tool_use', post, 7)}"`,
        '',
      ].join('\n'),
    );
    expect(r.err).toContain('/srv/codex-home/config.toml');
    expect(r.out + r.err).not.toContain(SECRET_TOKEN);
  });

  it('an approve hook gets PermissionRequest, fail-open without --fail-closed', async () => {
    const r = await run('codex', ['--hook', 'approver', '--command', 'hookgate'], { CODEX_HOME: '/h' });
    expect(r.out).toContain('[[hooks.PermissionRequest]]');
    expect(r.out).toContain(
      'command = "hookgate hook --host codex --url http://127.0.0.1:8787/v1/tenants/acme/hooks/approver --timeout-ms 21000"',
    );
    expect(r.out).not.toContain('PreToolUse');
    expect(r.err).toMatch(/fails open/);
  });
});

describe('hookgate setup copilot', () => {
  it('prints a user-level hooks file: preToolUse fail-closed, timeoutSec above the deadline', async () => {
    const r = await run('copilot', ['--hook', 'guard', '--url', URL_BASE]);
    expect(JSON.parse(r.out)).toEqual({
      version: 1,
      hooks: {
        preToolUse: [
          {
            type: 'command',
            bash: `${HOOKGATE} hook --host copilot --url ${GUARD} --timeout-ms 5000 --fail-closed`,
            timeoutSec: 7,
          },
        ],
        postToolUse: [
          {
            type: 'command',
            bash: `${HOOKGATE} hook --host copilot --url ${GUARD} --timeout-ms 5000`,
            timeoutSec: 7,
          },
        ],
      },
    });
    expect(r.err).toContain('~/.copilot/hooks/hookgate-guard.json');
    expect(r.out + r.err).not.toContain(SECRET_TOKEN);
  });

  it('an approve hook is asked on preToolUse, whose deadline covers both calls', async () => {
    const r = await run('copilot', ['--hook', 'approver', '--command', 'hookgate']);
    const hooks = JSON.parse(r.out).hooks;
    expect(Object.keys(hooks)).toEqual(['preToolUse']);
    expect(hooks.preToolUse[0].bash).toContain('--timeout-ms 21000');
    expect(hooks.preToolUse[0].timeoutSec).toBe(23);
  });
});

describe('hookgate setup gemini', () => {
  it('prints the settings.json hooks block (timeout in ms) and the headless flags', async () => {
    const r = await run('gemini', ['--hook', 'guard', '--url', URL_BASE]);
    const cmd = `${HOOKGATE} hook --host gemini --url ${GUARD} --timeout-ms 5000`;
    expect(JSON.parse(r.out)).toEqual({
      hooks: {
        BeforeTool: [
          {
            matcher: '.*',
            hooks: [
              { type: 'command', name: 'hookgate-guard', command: `${cmd} --fail-closed`, timeout: 7000 },
            ],
          },
        ],
        AfterTool: [
          {
            matcher: '.*',
            hooks: [{ type: 'command', name: 'hookgate-guard', command: cmd, timeout: 7000 }],
          },
        ],
      },
    });
    expect(r.err).toContain('--skip-trust --approval-mode yolo');
    expect(r.out + r.err).not.toContain(SECRET_TOKEN);
  });
});

describe('what setup prints runs', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          guard: {
            backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
            modes: ['tool'],
            on_failure: 'closed',
          },
        }),
      },
    });
  });
  afterAll(() => gw?.close());

  it("Copilot's preToolUse command, run by a shell with the captured stdin, carries the hook's deny", async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'setup-denied' });
    const r = await run('copilot', ['--hook', 'guard', '--url', gw.url]);
    const command: string = JSON.parse(r.out).hooks.preToolUse[0].bash;
    const child = spawn('bash', ['-c', command], {
      env: { ...process.env, HOOKGATE_TOKEN: await gw.token() },
    });
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    child.stdin.end(exchange('copilot', '01').stdin);
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ permissionDecision: 'deny', permissionDecisionReason: 'setup-denied' });
  });
});

it('setup refuses --command for a host that runs no hookgate command', async () => {
  const r = await run('claude-code', ['--hook', 'guard', '--command', 'hookgate']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/codex, copilot, gemini/);
});

describe('setup --write', () => {
  const home = join(dir, 'home');
  const env = { HOME: home, CODEX_HOME: join(home, '.codex') };

  it('copilot: writes the user-level hooks file, the same as printed', async () => {
    const printed = await run('copilot', ['--hook', 'guard', '--command', 'hookgate'], env);
    const r = await run('copilot', ['--hook', 'guard', '--command', 'hookgate', '--write'], env);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    const file = join(home, '.copilot', 'hooks', 'hookgate-guard.json');
    expect(r.err).toContain(`wrote ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(printed.out);
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET_TOKEN);
  });

  it('codex: merges into config.toml with trust entries for that file, idempotent, keeping the mode', async () => {
    mkdirSync(env.CODEX_HOME, { recursive: true });
    const config = join(env.CODEX_HOME, 'config.toml');
    writeFileSync(config, 'model = "m"\n', { mode: 0o640 });
    chmodSync(config, 0o640);
    const printed = await run('codex', ['--hook', 'guard', '--command', 'hookgate'], env);
    expect(printed.err).toContain(`append this to ${config}`);
    const r = await run('codex', ['--hook', 'guard', '--command', 'hookgate', '--write'], env);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toContain(`merged the hooks and their trust entries into ${config}`);
    expect(r.err).not.toContain('append this');
    expect(readFileSync(config, 'utf8')).toBe(`model = "m"\n\n${printed.out}`);
    expect(printed.out).toContain(`[hooks.state.${JSON.stringify(`${config}:pre_tool_use:0:0`)}]`);
    expect(statSync(config).mode & 0o777).toBe(0o640);
    const again = await run('codex', ['--hook', 'guard', '--command', 'hookgate', '--write'], env);
    expect(again.code).toBe(0);
    expect(again.err).toContain('unchanged');
    expect(readFileSync(config, 'utf8')).toBe(`model = "m"\n\n${printed.out}`);
    expect(readdirSync(env.CODEX_HOME)).toEqual(['config.toml']);
  });

  it('codex: a config.toml it cannot read as TOML is refused and left as it was', async () => {
    const config = join(env.CODEX_HOME, 'config.toml');
    const broken = 'model = "m"\n[hooks\n';
    writeFileSync(config, broken);
    const r = await run('codex', ['--hook', 'guard', '--command', 'hookgate', '--write'], env);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${config} was left unchanged: it is not valid TOML (line 2:`);
    expect(readFileSync(config, 'utf8')).toBe(broken);
    expect(readdirSync(env.CODEX_HOME)).toEqual(['config.toml']);
  });

  it("gemini: merges into settings.json, keeping other settings and hooks, replacing only this hook's", async () => {
    const file = join(home, '.gemini', 'settings.json');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    const other = { matcher: 'x', hooks: [{ type: 'command', name: 'other', command: 'true' }] };
    writeFileSync(file, JSON.stringify({ general: { vimMode: true }, hooks: { BeforeTool: [other] } }));
    for (let i = 0; i < 2; i++) {
      const r = await run('gemini', ['--hook', 'guard', '--command', 'hookgate', '--write'], env);
      expect(r.code).toBe(0);
    }
    const merged = JSON.parse(readFileSync(file, 'utf8'));
    expect(merged.general).toEqual({ vimMode: true });
    expect(merged.hooks.BeforeTool.map((g: any) => g.hooks[0].name)).toEqual(['other', 'hookgate-guard']);
    expect(merged.hooks.AfterTool.map((g: any) => g.hooks[0].name)).toEqual(['hookgate-guard']);
  });

  it('is refused for hosts it does not install', async () => {
    const r = await run('hermes', ['--hook', 'guard', '--write'], env);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--write is for setup codex, copilot and gemini/);
  });
});
