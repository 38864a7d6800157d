import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ownCommand, ownShellCommand, shellJoin, splitCommand } from '../../../src/node/cli/own-command.js';
import { runCli } from '../../helpers/cli.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';

/**
 * What `setup` and `init` print must run where it is printed for, as printed: a host (PicoClaw,
 * Hermes) runs it with a PATH of its own, and a project-local install (`npm install hookgate`) puts
 * no `hookgate` on any PATH. So each printed command is run here as a real child process with a
 * PATH that holds nothing at all.
 */
const NO_PATH = { PATH: '/nonexistent' };
const dir = mkdtempSync(join(tmpdir(), 'hookgate-own-command-'));
let gw: TestGateway;
let token: string;
let config: string;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        weather: {
          backend: { type: 'module', module: 'examples/weather-hook.ts' },
          modes: ['tool'],
          tools: ['get_weather'],
        },
      }),
    },
  });
  token = await gw.token({ tenant: 'acme', hooks: ['weather'] });
  // The same hook as setup reads it; its signing secret is not in setup's environment.
  config = join(dir, 'hookgate.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      tenants: {
        acme: {
          auth: { keys: [{ alg: 'HS256', secret: 'env:HOOKGATE_OWN_COMMAND_UNSET' }] },
          hooks: {
            weather: { backend: { type: 'module', module: 'x.js' }, modes: ['tool'], tools: ['get_weather'] },
          },
        },
      },
    }),
  );
});
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs argv as a child with only `env`; stdin written then closed, or kept open for `talk`. */
function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
  stdin: string,
  opts: { cwd?: string; untilLine?: RegExp } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env,
      cwd: opts.cwd ?? dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.on('error', reject);
    child.stdout.on('data', (b) => {
      out += b;
      // The bridge answers while stdin is open; close it once the answer is in.
      if (opts.untilLine?.test(out)) child.stdin.end();
    });
    child.stderr.on('data', (b) => {
      err += b;
    });
    child.on('close', (code) => resolve({ code, out, err }));
    if (opts.untilLine) child.stdin.write(stdin);
    else child.stdin.end(stdin);
  });
}

const setup = (host: string) =>
  runCli(['setup', host, '--config', config, '--tenant', 'acme', '--hook', 'weather', '--url', gw.url], {
    cwd: dir,
    env: { PATH: process.env.PATH },
  });

describe('printed commands run without hookgate on PATH', () => {
  it('setup picoclaw: the process hook’s command starts the bridge, which answers a call through the gateway', async () => {
    const printed = await setup('picoclaw');
    expect(printed.code, printed.err).toBe(0);
    const command: string[] = JSON.parse(printed.out).hooks.processes.weather.command;
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'hook.before_tool',
      params: { tool: 'get_weather', arguments: { city: 'Berlin' } },
    };
    const hello = {
      jsonrpc: '2.0',
      id: 1,
      method: 'hook.hello',
      params: { name: 'weather', version: 1, modes: ['tool'] },
    };
    const r = await run(
      command,
      { ...NO_PATH, HOOKGATE_TOKEN: token },
      `${JSON.stringify(hello)}\n${JSON.stringify(call)}\n`,
      {
        untilLine: /"id":2.*\n/,
      },
    );
    const answer = r.out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.id === 2);
    expect(answer, r.err).toMatchObject({
      result: { action: 'respond', result: { for_llm: expect.stringContaining('Berlin') } },
    });
    expect(r.code).toBe(0);
  });

  it('setup hermes: each command, split as Hermes splits it (shlex), answers an event through the gateway', async () => {
    const printed = await setup('hermes');
    expect(printed.code, printed.err).toBe(0);
    const line: string = parse(printed.out).hooks.pre_tool_call[0].command;
    // Hermes's own split: Python's shlex, no shell.
    const argv: string[] = JSON.parse(
      execFileSync(
        'python3',
        ['-c', 'import json,shlex,sys; print(json.dumps(shlex.split(sys.argv[1])))', line],
        {
          encoding: 'utf8',
        },
      ),
    );
    expect(argv).toEqual(splitCommand(line));
    const event = {
      hook_event_name: 'pre_tool_call',
      tool_name: 'get_weather',
      tool_input: { city: 'Berlin' },
      session_id: 's',
      cwd: '/',
      extra: {},
    };
    const r = await run(argv, { ...NO_PATH, HOOKGATE_TOKEN: token }, JSON.stringify(event));
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ action: 'block', message: expect.stringContaining('Berlin') });
  });

  it('init: the printed token command runs in a shell that has no hookgate', async () => {
    const where = mkdtempSync(join(tmpdir(), 'hookgate init '));
    const r = await runCli(['init'], { cwd: where, env: { PATH: process.env.PATH } });
    expect(r.code, r.err).toBe(0);
    const tokenLine = r.out.split('\n').find((l) => /\btoken --tenant local/.test(l))!;
    expect(tokenLine).not.toMatch(/^\s*hookgate /);
    const shell = await run(['/bin/sh', '-c', tokenLine.trim()], NO_PATH, '', { cwd: where });
    expect(shell.code, shell.err).toBe(0);
    expect(shell.out).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
    rmSync(where, { recursive: true, force: true });
  });

  it('setup’s hint for the token runs too', async () => {
    const printed = await setup('hermes');
    const hint = /\((.* token --config [^)]*)\)/.exec(printed.err)?.[1];
    expect(hint).toBeDefined();
    // The hint's config has no secret it can sign with here: it must get as far as saying so.
    const shell = await run(['/bin/sh', '-c', hint!], NO_PATH, '');
    expect(shell.err).toContain('environment variable HOOKGATE_OWN_COMMAND_UNSET is not set');
  });
});

describe('the command line helpers', () => {
  it('a global install on PATH is plain `hookgate`; otherwise this Node and path', () => {
    expect(ownShellCommand({ PATH: '/nonexistent' })).toBe(shellJoin(ownCommand()));
    const bin = mkdtempSync(join(tmpdir(), 'hookgate-bin-'));
    execFileSync('ln', ['-s', ownCommand()[1], join(bin, 'hookgate')]);
    expect(ownShellCommand({ PATH: `/nonexistent:${bin}` })).toBe('hookgate');
    rmSync(bin, { recursive: true, force: true });
  });

  it('shellJoin quotes what a shell would split or expand; splitCommand reads it back', () => {
    const argv = ['/opt/my node/bin/node', "it's", '$HOME', 'plain-arg', '--url=http://h:1/x?a=b&c'];
    expect(splitCommand(shellJoin(argv))).toEqual(argv);
    expect(
      execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${shellJoin(argv.slice(1))}`], { encoding: 'utf8' }),
    ).toBe(`${argv.slice(1).join('\n')}\n`);
    expect(() => splitCommand('"open')).toThrow(/unclosed/);
  });
});
