import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ownCommand, shellJoin } from '../../../src/node/cli/own-command.js';
import { runCli } from '../../helpers/cli.js';

/** This Node and this hookgate's path, as one command line: what setup prints unless --command says otherwise. */
const HOOKGATE = shellJoin(ownCommand());

const dir = mkdtempSync(join(tmpdir(), 'hookgate-setup-hermes-'));
const config = join(dir, 'hookgate.yaml');
process.env.HOOKGATE_SETUP_HERMES_SECRET = 'setup-test-secret-0123456789-abcdefghijkl';
const module = { type: 'module', module: 'x.js' };
writeFileSync(
  config,
  JSON.stringify({
    server: { host: '127.0.0.1', port: 8787 },
    tenants: {
      acme: {
        auth: { keys: [{ alg: 'HS256', secret: 'env:HOOKGATE_SETUP_HERMES_SECRET' }] },
        hooks: {
          guard: { backend: module, modes: ['tool'], on_failure: 'closed', timeout_ms: 4000 },
          all: { backend: module, modes: ['observe', 'llm', 'tool'], on_failure: 'open' },
          'weather-2': { backend: module, modes: ['tool'], tools: ['get_weather'], timeout_ms: 4000 },
        },
      },
    },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `hookgate setup hermes --config … --tenant acme …` in this process, with its own streams. */
const run = (args: string[]) =>
  runCli(['setup', 'hermes', '--config', config, '--tenant', 'acme', ...args], { cwd: dir });

describe('hookgate setup hermes', () => {
  it('prints the config.yaml hooks block; fail-closed on pre_tool_call for a closed hook', async () => {
    const r = await run(['--hook', 'guard', '--url', 'https://gw.example.com/']);
    expect(r.code).toBe(0);
    const url = 'https://gw.example.com/v1/tenants/acme/hooks/guard';
    expect(parse(r.out)).toEqual({
      hooks: {
        pre_tool_call: [
          {
            command: `${HOOKGATE} hermes-hook --url ${url} --timeout-ms 5000 --fail-closed`,
            timeout: 7,
            fail_closed: true,
          },
        ],
        post_tool_call: [{ command: `${HOOKGATE} hermes-hook --url ${url} --timeout-ms 5000`, timeout: 7 }],
      },
    });
    expect(r.err).toContain('HOOKGATE_TOKEN');
  });

  it('covers the events of every mode the hook has; an open hook never fails closed', async () => {
    const r = await run(['--hook', 'all']);
    const hooks = parse(r.out).hooks;
    expect(Object.keys(hooks)).toEqual([
      'pre_llm_call',
      'pre_tool_call',
      'post_tool_call',
      'post_llm_call',
      'on_session_start',
      'on_session_end',
      'subagent_stop',
    ]);
    expect(r.out).not.toContain('fail');
    expect(hooks.pre_tool_call[0].command).toContain('http://127.0.0.1:8787/v1/tenants/acme/hooks/all');
  });

  it('--hermes-no-modify adds --no-modify to pre_tool_call only', async () => {
    const hooks = parse((await run(['--hook', 'guard', '--hermes-no-modify'])).out).hooks;
    expect(hooks.pre_tool_call[0].command).toMatch(/ --fail-closed --no-modify$/);
    expect(hooks.post_tool_call[0].command).not.toContain('--no-modify');
  });

  it('a hook with tools: also the mcp_servers block serving them, the token left to Hermes to expand', async () => {
    const r = await run(['--hook', 'weather-2', '--url', 'https://gw.example.com']);
    expect(r.code).toBe(0);
    const doc = parse(r.out);
    expect(Object.keys(doc)).toEqual(['hooks', 'mcp_servers']);
    expect(doc.mcp_servers).toEqual({
      hookgate_weather_2: {
        url: 'https://gw.example.com/v1/tenants/acme/hooks/weather-2/mcp',
        // Hermes's own interpolation syntax, left for Hermes to expand.
        headers: { Authorization: ['Bearer ', '$', '{HOOKGATE_TOKEN}'].join('') },
        timeout: 7,
      },
    });
    expect(r.err).toContain('"hooks:" and "mcp_servers:" blocks');
    // A hook without tools gets no MCP server.
    expect(parse((await run(['--hook', 'guard'])).out).mcp_servers).toBeUndefined();
  });

  it('names the host in its usage errors', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('setup hermes needs --tenant and --hook');
  });
});
