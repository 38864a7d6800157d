import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownCommand } from '../../../src/node/cli/own-command.js';
import { runCli } from '../../helpers/cli.js';

/** This Node and this hookgate's path: what setup prints unless --command says otherwise. */
const HOOKGATE = ownCommand();

const dir = mkdtempSync(join(tmpdir(), 'hookgate-setup-picoclaw-'));
const config = join(dir, 'hookgate.yaml');
process.env.HOOKGATE_SETUP_PICOCLAW_SECRET = 'setup-test-secret-0123456789-abcdefghijkl';
const module = { type: 'module', module: 'x.js' };
writeFileSync(
  config,
  JSON.stringify({
    server: { host: '127.0.0.1', port: 8787 },
    tenants: {
      acme: {
        auth: { keys: [{ alg: 'HS256', secret: 'env:HOOKGATE_SETUP_PICOCLAW_SECRET' }] },
        hooks: {
          guard: { backend: module, modes: ['tool', 'approve'], on_failure: 'closed', timeout_ms: 3000 },
          weather: { backend: module, modes: ['llm', 'tool'], tools: ['get_weather'] },
          watcher: { backend: module, modes: ['observe'] },
          slow: {
            backend: module,
            modes: ['tool', 'approve'],
            timeout_ms: 8000,
            approval_timeout_ms: 58_000,
          },
        },
      },
    },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) =>
  runCli(['setup', 'picoclaw', '--config', config, '--tenant', 'acme', ...args], { cwd: dir });

describe('hookgate setup picoclaw', () => {
  it('prints the process hook running the bridge: intercepts by mode, fail-closed, no token in the file', async () => {
    const r = await run(['--hook', 'guard', '--url', 'https://gw.example.com']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      hooks: {
        enabled: true,
        processes: {
          guard: {
            enabled: true,
            priority: 100,
            command: [
              ...HOOKGATE,
              'bridge',
              '--url',
              'wss://gw.example.com/v1/tenants/acme/hooks/guard/ws',
              '--on-failure',
              'closed',
            ],
            intercept: ['before_tool', 'approve_tool'],
          },
        },
      },
    });
    expect(r.out).not.toContain('HOOKGATE_TOKEN');
    expect(r.err).toContain('export HOOKGATE_TOKEN where PicoClaw runs');
  });

  it('a hook with tools: also the tools.mcp server for its MCP route, with a placeholder to fill', async () => {
    const r = await run(['--hook', 'weather']);
    const out = JSON.parse(r.out);
    expect(out.hooks.processes.weather.command).toEqual([
      ...HOOKGATE,
      'bridge',
      '--url',
      'ws://127.0.0.1:8787/v1/tenants/acme/hooks/weather/ws',
    ]);
    expect(out.hooks.processes.weather.intercept).toEqual(['before_llm', 'before_tool']);
    expect(out.tools.mcp.servers.hookgate).toEqual({
      enabled: true,
      type: 'http',
      url: 'http://127.0.0.1:8787/v1/tenants/acme/hooks/weather/mcp',
      headers: { Authorization: 'Bearer <the hook token>' },
    });
    expect(r.err).toContain('replace the placeholder');
  });

  it('observe mode: observe every kind, no intercepts', async () => {
    const entry = JSON.parse((await run(['--hook', 'watcher'])).out).hooks.processes.watcher;
    expect(entry.observe).toEqual(['*']);
    expect(entry.intercept).toBeUndefined();
  });

  it('deadlines past PicoClaw’s defaults: the bridge’s are raised and so must PicoClaw’s be, said on stderr', async () => {
    const r = await run(['--hook', 'slow']);
    expect(JSON.parse(r.out).hooks.processes.slow.command.slice(HOOKGATE.length + 3)).toEqual([
      '--timeout-ms',
      '8500',
      '--approval-timeout-ms',
      '58500',
    ]);
    expect(r.err).toContain('set hooks.defaults to {"interceptor_timeout_ms":9000}');
  });

  it('--command: how the host starts hookgate, split as a shell would', async () => {
    const r = await run(['--hook', 'watcher', '--command', 'hookgate --debug']);
    expect(JSON.parse(r.out).hooks.processes.watcher.command.slice(0, 3)).toEqual([
      'hookgate',
      '--debug',
      'bridge',
    ]);
    const bad = await run(['--hook', 'watcher', '--command', "'hookgate"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^hookgate setup: --command: unclosed ' in/);
    const wrongHost = await runCli(
      ['setup', 'claude-code', '--config', config, '--tenant', 'acme', '--hook', 'guard', '--command', 'x'],
      { cwd: dir },
    );
    expect(wrongHost.code).toBe(2);
  });

  it('needs none of the tenant’s secrets: setup signs nothing', async () => {
    const env = { PATH: process.env.PATH };
    const r = await runCli(['setup', 'picoclaw', '--config', config, '--tenant', 'acme', '--hook', 'guard'], {
      cwd: dir,
      env,
    });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).hooks.processes.guard.intercept).toEqual(['before_tool', 'approve_tool']);
  });
});
