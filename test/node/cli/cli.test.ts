import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../../src/node/cli/commands/index.js';
import { runCli } from '../../helpers/cli.js';

/** Runs the CLI in this process with its own streams, environment and working directory. */
async function cli(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = mkdtempSync(join(tmpdir(), 'hookgate-cli-')),
) {
  const { code, out, err } = await runCli(argv, { env, cwd });
  return { code, stdout: out, stderr: err, cwd };
}

const oneLine = (s: string) => s.trimEnd().split('\n').length === 1;

describe('hookgate (no command), --help, --version', () => {
  it('lists every command on --help and exits 0; with nothing at all exits 2', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const c of commands) expect(help.stdout).toContain(`  ${c.name}`);
    expect((await cli(['-h'])).code).toBe(0);
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^usage: hookgate <command>/);
  });

  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(await cli(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect((await cli(['-V'])).stdout).toBe(`${pkg.version}\n`);
    expect(await cli(['-v'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it("help <command> prints that command's usage, as <command> --help does", async () => {
    for (const { name } of commands) {
      const help = await cli(['help', name]);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toBe((await cli([name, '--help'])).stdout);
      expect(help.stdout).toMatch(new RegExp(`^usage: hookgate ${name}`));
    }
    expect(await cli(['help', 'frobnicate'])).toMatchObject({
      code: 2,
      stderr: 'hookgate help: no command "frobnicate" (hookgate --help lists them)\n',
    });
  });

  it('refuses an unknown command in one line with exit 2', async () => {
    const out = await cli(['frobnicate']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe('hookgate: unknown command "frobnicate" (hookgate --help lists them)\n');
  });
});

describe('every command', () => {
  it.each(commands.map((c) => c.name))('%s --help prints its usage and exits 0', async (name) => {
    for (const flag of ['--help', '-h']) {
      const out = await cli([name, flag]);
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(new RegExp(`^usage: hookgate ${name}`));
      expect(out.stderr).toBe('');
    }
  });

  it.each(commands.map((c) => c.name))('%s names every flag it takes in its usage line', async (name) => {
    const command = await commands.find((c) => c.name === name)!.load();
    // The usage line(s): up to the first flag's own description.
    const lines = command.help.split('\n');
    const end = lines.findIndex((l, i) => i > 0 && /^\s+--/.test(l));
    const usage = lines.slice(0, end === -1 ? undefined : end).join('\n');
    if (usage.includes('[options]')) return; // bridge: the list follows
    for (const flag of Object.keys(command.flags)) expect(usage).toContain(`--${flag}`);
  });

  it.each(commands.map((c) => c.name))('%s answers a usage error with one line and exit 2', async (name) => {
    const out = await cli([name, '--no-such-flag']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `hookgate ${name}: unknown option --no-such-flag (hookgate ${name} --help for usage)\n`,
    );
  });
});

describe('errors at run time', () => {
  it('are one line without a stack; --debug adds the stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
    writeFileSync(join(dir, 'hookgate.secret'), 'x'.repeat(40));
    writeFileSync(join(dir, 'k1.pem'), 'x');
    await cli(['keygen', '--alg', 'EdDSA'], {}, dir);
    const plain = await cli(['keygen', '--alg', 'EdDSA'], {}, dir);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/^hookgate keygen: error: .*k1\.pem exists; not overwriting it/);
    expect(oneLine(plain.stderr)).toBe(true);
    const debug = await cli(['keygen', '--alg', 'EdDSA', '--debug'], {}, dir);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('a config error names every problem by its path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
    writeFileSync(
      join(dir, 'hookgate.yaml'),
      'tenants: { a: { auth: { keys: [] }, hooks: { h: { backend: { type: nope } } } } }\n',
    );
    const out = await cli(['check-config'], {}, dir);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^hookgate check-config: config error:\n {2}tenants\.a\./);
  });
});

describe('which config a command uses', () => {
  const valid = (secretRef: string) =>
    `tenants:\n  t:\n    auth: { keys: [{ kid: k1, alg: HS256, secret: ${secretRef} }] }\n    hooks:\n      h: { backend: { type: http, url: "https://hooks.example/h", secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw } }\n`;

  it('--config, else HOOKGATE_CONFIG, else ./hookgate.yaml; none: a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
    const none = await cli(['check-config'], {}, dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /no config: pass --config FILE, set HOOKGATE_CONFIG, or run where hookgate.yaml is/,
    );
    expect(oneLine(none.stderr)).toBe(true);

    writeFileSync(join(dir, 'hookgate.yaml'), valid('env:A_SECRET'));
    writeFileSync(join(dir, 'other.yaml'), valid('env:OTHER_SECRET'));
    const secret = 's'.repeat(40);
    expect(await cli(['check-config'], { A_SECRET: secret }, dir)).toMatchObject({ code: 0 });
    const viaEnv = await cli(['check-config'], { HOOKGATE_CONFIG: 'other.yaml' }, dir);
    expect(viaEnv.stderr).toContain('OTHER_SECRET is not set');
    expect(
      await cli(['check-config'], { HOOKGATE_CONFIG: 'other.yaml', OTHER_SECRET: secret }, dir),
    ).toMatchObject({
      code: 0,
    });
    const viaFlag = await cli(
      ['check-config', '--config', 'other.yaml'],
      { HOOKGATE_CONFIG: 'hookgate.yaml' },
      dir,
    );
    expect(viaFlag.stderr).toContain('OTHER_SECRET is not set');
  });

  it('serve refuses to start without a config unless --demo, and rejects bad PORT/LOG_LEVEL in one line', async () => {
    const none = await cli(['serve']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no config: .*--demo runs the built-in demo/);
    expect(oneLine(none.stderr)).toBe(true);
    expect((await cli(['serve', '--demo', '--config', 'x.yaml'])).stderr).toMatch(
      /--demo and --config cannot be used together/,
    );
    const port = await cli(['serve', '--demo'], { PORT: 'http' });
    expect(port).toMatchObject({ code: 2 });
    expect(port.stderr).toMatch(/^hookgate serve: PORT must be a port number 0-65535 \(got "http"\)/);
    expect((await cli(['serve', '--demo', '--port', '70000'])).stderr).toMatch(
      /--port must be a port number/,
    );
    const level = await cli(['serve', '--demo'], { LOG_LEVEL: 'loud' });
    expect(level).toMatchObject({ code: 2 });
    expect(level.stderr).toMatch(/LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
  });
});

describe('keygen', () => {
  it('prints a fresh HS256 secret on stdout (the config line on stderr)', async () => {
    const a = await cli(['keygen']);
    const b = await cli(['keygen', '--alg', 'HS256', '--kid', 'k7']);
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(b.stdout).not.toBe(a.stdout);
    expect(b.stderr).toContain('{ kid: k7, alg: HS256, secret: env:');
    expect((await cli(['keygen', '--alg', 'RS1'])).code).toBe(2);
  });

  it('writes an Ed25519 pair (private mode 600) whose config line a config accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
    const out = await cli(['keygen', '--alg', 'EdDSA', '--kid', 'ed1', '--out', 'keys/ed1'], {}, dir);
    expect(out.code).toBe(0);
    expect(statSync(join(dir, 'keys/ed1.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'keys/ed1.pem'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const line = /(- \{ kid: ed1, alg: EdDSA, public_key: file:keys\/ed1\.pub\.pem \})/.exec(out.stdout)![1];
    writeFileSync(
      join(dir, 'hookgate.yaml'),
      `tenants:\n  t:\n    auth:\n      keys:\n        ${line}\n    hooks:\n      h: { backend: { type: http, url: "https://hooks.example/h", secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw } }\n`,
    );
    expect(await cli(['check-config'], {}, dir)).toMatchObject({
      code: 0,
      stdout: 'config ok: 1 tenant(s), 1 hook(s)\n',
    });
  });
});

describe('init', () => {
  it('writes a config that checks as is, and refuses to overwrite anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
    const first = await cli(['init'], {}, dir);
    expect(first.code).toBe(0);
    expect(statSync(join(dir, 'hookgate.secret')).mode & 0o777).toBe(0o600);
    expect(await cli(['check-config'], {}, dir)).toMatchObject({
      code: 0,
      stdout: 'config ok: 1 tenant(s), 2 hook(s)\n',
    });
    // The rules it wrote hold the cases it wrote, as its own output says to check.
    const tested = await cli(['rules', 'test', '--config', 'hookgate.yaml', 'rules-test.yaml'], {}, dir);
    expect(tested).toMatchObject({ code: 0, stdout: expect.stringContaining('5 of 5 cases hold') });
    expect(first.stdout).toContain('rules test --config hookgate.yaml rules-test.yaml');
    const before = readFileSync(join(dir, 'hookgate.secret'), 'utf8');
    const again = await cli(['init'], {}, dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /not overwriting hookgate.yaml, hookgate.secret, hooks\/weather.mjs, rules-test.yaml/,
    );
    expect(readFileSync(join(dir, 'hookgate.secret'), 'utf8')).toBe(before);
  });

  it('writes nothing when one of its files is already there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
    writeFileSync(join(dir, 'hookgate.secret'), 'mine');
    expect((await cli(['init'], {}, dir)).code).toBe(1);
    expect(existsSync(join(dir, 'hookgate.yaml'))).toBe(false);
    expect(readFileSync(join(dir, 'hookgate.secret'), 'utf8')).toBe('mine');
  });
});

describe('rules test', () => {
  const CONFIG = `tenants:
  acme:
    auth: { keys: [{ alg: HS256, secret: rules-test-secret-0123456789abcdefghijkl }] }
    hooks:
      guard:
        backend: { type: rules }
        modes: [tool, approve]
        grants: { approve_tools: [{ tool: Bash, when: 'args.command.startsWith("git status")' }] }
        rules:
          - { name: no-force-push, kind: shell, when: 'call.command.contains("push --force")', action: deny, reason: no force push }
          - { name: git-reads, kind: shell, when: 'call.command.startsWith("git ")', action: allow }
`;
  const write = (cases: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-rules-test-'));
    writeFileSync(join(dir, 'hookgate.yaml'), CONFIG);
    writeFileSync(join(dir, 'cases.yaml'), cases);
    return dir;
  };

  it('prints one line per case and exits 0 when every case holds', async () => {
    const dir = write(`cases:
  - { name: force push, tenant: acme, hook: guard, host: codex, tool: Bash, args: { command: "git push --force" }, expect: deny }
  - { name: git status approved, tenant: acme, hook: guard, host: claude-code, method: approve_tool, tool: Bash, args: { command: "git status" }, expect: allow }
  - { name: git log not approved past the prompt, tenant: acme, hook: guard, host: claude-code, method: approve_tool, tool: Bash, args: { command: "git log" }, expect: continue }
  - { name: ls, tenant: acme, hook: guard, host: picoclaw, tool: exec, args: { command: ls }, expect: continue }
`);
    const r = await cli(['rules', 'test', '--config', 'hookgate.yaml', 'cases.yaml'], {}, dir);
    expect(r.stdout.split('\n')).toEqual([
      'ok   force push: deny (rule "no-force-push")',
      'ok   git status approved: allow (rule "git-reads")',
      expect.stringMatching(
        /^ok {3}git log not approved past the prompt: continue \(rule "git-reads" \(hook "guard" may not approve tool "Bash"/,
      ),
      'ok   ls: continue (no rule decided)',
      '4 of 4 cases hold',
      '',
    ]);
    expect(r.code).toBe(0);
  });

  it('exits 1 naming the case that does not hold', async () => {
    const dir = write(`cases:
  - { name: force push allowed?, tenant: acme, hook: guard, tool: exec, args: { command: "git push --force" }, expect: allow }
  - { name: a host no route serves, tenant: acme, hook: guard, host: cursor, tool: exec, args: { command: ls }, expect: continue }
`);
    const r = await cli(['rules', 'test', '--config', 'hookgate.yaml', 'cases.yaml'], {}, dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL force push allowed?: expected allow, got deny (rule "no-force-push")');
    expect(r.stdout).toContain(
      'FAIL a host no route serves: expected continue, got continue (no host "cursor"',
    );
  });

  it('exits 2 on a usage error or a cases file that is not valid, naming the path', async () => {
    const dir = write('cases:\n  - { name: x, tenant: acme, hook: guard, tool: exec, expect: maybe }\n');
    const bad = await cli(['rules', 'test', '--config', 'hookgate.yaml', 'cases.yaml'], {}, dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cases.0.expect');
    expect((await cli(['rules', 'run', '--config', 'hookgate.yaml', 'cases.yaml'], {}, dir)).code).toBe(2);
    expect((await cli(['rules', 'test', 'cases.yaml'], {}, dir)).code).toBe(2);
  });
});
