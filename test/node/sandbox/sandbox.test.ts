import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../../src/node/config-loader.js';
import { createNodeLogger } from '../../../src/node/logger.js';
import {
  deniedToSandboxUser,
  detectSandbox,
  hookOwnPaths,
  planSandbox,
  type SandboxPolicy,
  SANDBOX_UID,
  wrapInSandbox,
} from '../../../src/node/sandbox/sandbox.js';
import { startGateway } from '../../../src/node/server.js';
import { signDevToken } from '../../../src/node/token.js';
import { LogCapture, REPO, startTestGateway, tenantDoc } from '../../helpers/gateway.js';

const BIN = join(REPO, 'bin', 'hookgate.js');
const SPY = join(REPO, 'test', 'helpers', 'sandbox-spy-hook.mjs');
const MISBEHAVING = join(REPO, 'test', 'helpers', 'misbehaving-hook.mjs');
const support = detectSandbox();
const bwrapAvailable = support.available || !!process.env.CI; // CI installs bubblewrap: a missing one fails there
const why = support.available ? '' : ` (SKIPPED: ${support.reason})`;

const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  bwrap: '/usr/bin/bwrap',
  identity: { kind: 'userns' },
  host: { dirs: ['/usr'], symlinks: [{ path: '/bin', target: 'usr/bin' }] },
  readOnly: [],
  writable: [],
  hide: [],
  network: true,
  cwd: '/srv/hooks/acme',
  keepHome: false,
  ...over,
});
const spec = {
  command: 'python3',
  args: ['hook.py', '--verbose'],
  cwd: '/srv/hooks/acme',
  env: { PATH: '/usr/bin', HOME: '/root', API_KEY: 'sk-live-do-not-put-me-in-argv', GONE: undefined },
};

/** The flags in front of `--` (what bwrap does), and what follows it (what it runs). */
function split(args: readonly string[]) {
  const i = args.indexOf('--');
  return { flags: args.slice(0, i), run: args.slice(i + 1) };
}
/** Index of a flag followed by exactly these values, or -1. */
function at(args: readonly string[], ...seq: string[]): number {
  for (let i = 0; i + seq.length <= args.length; i++) if (seq.every((s, j) => args[i + j] === s)) return i;
  return -1;
}

describe('wrapInSandbox: the bwrap argv (pure)', () => {
  it('runs the command under bwrap in fresh namespaces, dies with the gateway, and drops every capability', () => {
    const out = wrapInSandbox(spec, policy());
    expect(out.command).toBe('/usr/bin/bwrap');
    const { flags, run } = split(out.args);
    expect(run).toEqual(['python3', 'hook.py', '--verbose']);
    for (const f of ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts'])
      expect(flags).toContain(f);
    expect(at(flags, '--unshare-user', '--uid', String(SANDBOX_UID), '--gid', '65534')).toBeGreaterThan(-1);
    expect(at(flags, '--cap-drop', 'ALL')).toBeGreaterThan(-1);
    expect(flags).not.toContain('--cap-add');
    expect(at(flags, '--proc', '/proc')).toBeGreaterThan(-1);
    expect(at(flags, '--dev', '/dev')).toBeGreaterThan(-1);
    expect(at(flags, '--perms', '1777', '--tmpfs', '/tmp')).toBeGreaterThan(-1);
    expect(at(flags, '--ro-bind', '/usr', '/usr')).toBeGreaterThan(-1);
    expect(at(flags, '--symlink', 'usr/bin', '/bin')).toBeGreaterThan(-1);
    expect(at(flags, '--chdir', '/srv/hooks/acme')).toBe(flags.length - 2);
  });

  it('sizes the private /tmp when told its size, and leaves it to bwrap otherwise', () => {
    const sized = split(wrapInSandbox(spec, policy({ tmpBytes: 64 * 2 ** 20 })).args).flags;
    expect(at(sized, '--perms', '1777', '--size', String(64 * 2 ** 20), '--tmpfs', '/tmp')).toBeGreaterThan(
      -1,
    );
    expect(split(wrapInSandbox(spec, policy()).args).flags).not.toContain('--size');
  });

  it('shares the network only when the config allows it', () => {
    expect(wrapInSandbox(spec, policy({ network: true })).args).not.toContain('--unshare-net');
    expect(split(wrapInSandbox(spec, policy({ network: false })).args).flags).toContain('--unshare-net');
  });

  it('hands bwrap exactly the computed env, HOME the private /tmp, and no env value in argv', () => {
    const out = wrapInSandbox(spec, policy());
    expect(out.env).toEqual({ PATH: '/usr/bin', HOME: '/tmp', API_KEY: 'sk-live-do-not-put-me-in-argv' });
    expect(out.args.join(' ')).not.toContain('sk-live');
    expect(out.args).not.toContain('--setenv');
    expect(wrapInSandbox(spec, policy({ keepHome: true })).env.HOME).toBe('/root');
  });

  it('binds read-only and writable paths after creating searchable parents, then covers what it must hide', () => {
    const out = wrapInSandbox(
      spec,
      policy({
        readOnly: ['/srv/hooks/acme', '/opt/python'],
        writable: ['/var/lib/hookgate/acme'],
        hide: [
          { path: '/srv/hooks/acme/hookgate.yaml', dir: false },
          { path: '/srv/hooks/acme/globex', dir: true },
        ],
      }),
    );
    const { flags } = split(out.args);
    const ro = at(flags, '--ro-bind', '/srv/hooks/acme', '/srv/hooks/acme');
    const rw = at(flags, '--bind', '/var/lib/hookgate/acme', '/var/lib/hookgate/acme');
    expect(ro).toBeGreaterThan(at(flags, '--perms', '0755', '--dir', '/srv/hooks'));
    expect(at(flags, '--perms', '0755', '--dir', '/srv')).toBeGreaterThan(-1);
    expect(at(flags, '--ro-bind', '/opt/python', '/opt/python')).toBeGreaterThan(-1);
    expect(rw).toBeGreaterThan(at(flags, '--perms', '0755', '--dir', '/var/lib/hookgate'));
    const file = at(flags, '--ro-bind', '/dev/null', '/srv/hooks/acme/hookgate.yaml');
    const dir = at(flags, '--perms', '0000', '--tmpfs', '/srv/hooks/acme/globex');
    expect(file).toBeGreaterThan(ro);
    expect(dir).toBeGreaterThan(ro);
    expect(at(flags, '--remount-ro', '/srv/hooks/acme/globex')).toBe(dir + 4);
    // /usr is a bind already: nothing is created under it.
    expect(flags.filter((f, i) => flags[i - 1] === '--dir' && f.startsWith('/usr'))).toEqual([]);
  });

  it('as root, mounts as root and then switches to the real uid 65534 with setpriv', () => {
    const out = wrapInSandbox(spec, policy({ identity: { kind: 'setpriv', setpriv: '/usr/bin/setpriv' } }));
    const { flags, run } = split(out.args);
    expect(flags).not.toContain('--unshare-user');
    expect(
      at(flags, '--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID'),
    ).toBeGreaterThan(-1);
    expect(run).toEqual([
      '/usr/bin/setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      '--bounding-set=-all',
      '--inh-caps=-all',
      '--no-new-privs',
      '--',
      'python3',
      'hook.py',
      '--verbose',
    ]);
  });
});

describe.skipIf(!bwrapAvailable)(`the argv, run by the real bwrap${why}`, () => {
  const identities = [
    { kind: 'userns' as const },
    ...(process.getuid?.() === 0 ? [{ kind: 'setpriv' as const, setpriv: '/usr/bin/setpriv' }] : []),
  ];
  it.each(identities)('$kind: uid 65534, no capabilities, only its own processes', (identity) => {
    if (!support.available) throw new Error(support.reason); // under CI, where it must work
    const script = 'id -u; grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status; ls /proc | grep -c "^[0-9]"';
    const out = wrapInSandbox(
      { command: '/bin/sh', args: ['-c', script], cwd: '/', env: { PATH: '/usr/bin:/bin' } },
      { ...policy({ identity, cwd: '/', network: false }), bwrap: support.bwrap, host: support.host },
    );
    const r = spawnSync(out.command, out.args, { env: out.env, encoding: 'utf8', timeout: 10_000 });
    expect(r.stderr).toBe('');
    const [uid, ...rest] = r.stdout.trim().split('\n');
    expect(uid).toBe('65534');
    expect(rest.slice(0, 3).map((l) => l.split(/\s+/)[1])).toEqual([
      '0000000000000000',
      '0000000000000000',
      '0000000000000000',
    ]);
    // bwrap's init, sh, ls and grep: nothing of the host.
    expect(Number(rest[3])).toBeLessThanOrEqual(4);
  });

  it.each(identities)(
    '$kind: a hook whose cwd is deep under /tmp (a checkout there) can enter it',
    (identity) => {
      if (!support.available) throw new Error(support.reason); // under CI, where it must work
      const root = mkdtempSync(join(tmpdir(), 'hookgate-deep-'));
      chmodSync(root, 0o755);
      const cwd = join(root, 'checkout', 'examples');
      mkdirSync(cwd, { recursive: true });
      writeFileSync(join(cwd, 'hook.txt'), 'seen');
      const out = wrapInSandbox(
        // By its full path, as pyenv's shims do (`cd "$PWD"`): every parent must be searchable.
        {
          command: '/bin/sh',
          args: ['-c', `cd "${cwd}" && pwd && cat hook.txt`],
          cwd,
          env: { PATH: '/usr/bin:/bin' },
        },
        {
          ...policy({ identity, cwd, readOnly: [cwd], network: false }),
          bwrap: support.bwrap,
          host: support.host,
        },
      );
      const r = spawnSync(out.command, out.args, { env: out.env, encoding: 'utf8', timeout: 10_000 });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim().split('\n')).toEqual([cwd, 'seen']);
    },
  );
});

describe('planSandbox: one hook view, resolved against the host', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'hookgate-plan-')));
  const prefix = join(root, 'opt', 'lang');
  const acme = join(root, 'hooks', 'acme');
  const globex = join(root, 'hooks', 'globex');
  beforeAll(() => {
    for (const d of [join(prefix, 'bin'), join(prefix, 'lib'), acme, globex])
      mkdirSync(d, { recursive: true });
    writeFileSync(join(prefix, 'bin', 'lang'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(root, 'hookgate.yaml'), 'tenants: {}\n');
    writeFileSync(join(root, 'key.txt'), 'secret\n');
    writeFileSync(join(acme, 'hook.lang'), '');
    writeFileSync(join(globex, 'hook.lang'), '');
  });
  const fakeSupport = {
    available: true as const,
    bwrap: '/usr/bin/bwrap',
    identity: { kind: 'userns' as const },
    host: { dirs: ['/usr'], symlinks: [] },
    networkIsolation: true as const,
  };
  const plan = (over: Record<string, unknown> = {}) =>
    planSandbox(
      {
        command: ['lang', 'hooks/acme/hook.lang'],
        cwd: root,
        env: { PATH: `${join(prefix, 'bin')}:/usr/bin` },
        readPaths: [],
        writePaths: [],
        network: true,
        privatePaths: [join(root, 'hookgate.yaml'), join(root, 'key.txt'), '/nonexistent/secret'],
        foreignPaths: [globex, join(globex, 'hook.lang')],
        ...over,
      },
      fakeSupport,
    );

  it("binds the interpreter's install prefix (found on the hook's PATH), the cwd and the script's directory, read-only", () => {
    expect(plan().readOnly).toEqual([prefix, root, join(root, 'hooks/acme')]);
    expect(plan().cwd).toBe(root);
  });

  it('shows a script named by a path outside the cwd, with its directory', () => {
    const elsewhere = join(prefix, '..', 'scripts');
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, 'hook.lang'), '');
    expect(plan({ command: ['lang', join(elsewhere, 'hook.lang')] }).readOnly).toContain(
      realpathSync(elsewhere),
    );
  });

  it("covers the config, its file: secrets and other tenants' hooks that fall inside the view", () => {
    expect(plan().hide).toEqual([
      { path: join(root, 'hookgate.yaml'), dir: false },
      { path: join(root, 'key.txt'), dir: false },
      { path: globex, dir: true },
    ]);
  });

  it('never covers what the hook itself needs, and a secret even when read_paths names it', () => {
    const p = plan({ cwd: globex, command: ['lang', 'hook.lang'], readPaths: [join(root, 'key.txt')] });
    expect(p.hide.map((h) => h.path)).toEqual([join(root, 'key.txt')]);
  });

  it("takes another tenant's script directory, unless it holds something this hook needs", () => {
    const shared = join(root, 'hooks');
    writeFileSync(join(shared, 'top.lang'), '');
    const globexOwn = hookOwnPaths({
      command: ['lang', join(globex, 'hook.lang'), '--flag'],
      cwd: root,
      explicitCwd: false,
      readPaths: [],
      writePaths: [],
    });
    expect(globexOwn).toEqual([join(globex, 'hook.lang'), globex]);
    expect(plan({ foreignPaths: globexOwn }).hide).toContainEqual({ path: globex, dir: true });
    // A script next to this hook's own: only the file is covered, the directory stays.
    const besideOwn = hookOwnPaths({
      command: [join(shared, 'top.lang')],
      cwd: root,
      explicitCwd: false,
      readPaths: [],
      writePaths: [],
    });
    const hide = plan({ command: ['lang', 'hooks/acme/hook.lang'], foreignPaths: besideOwn }).hide;
    expect(hide).toContainEqual({ path: join(shared, 'top.lang'), dir: false });
    expect(hide.map((h) => h.path)).not.toContain(shared);
  });

  it("keeps the directory of a script named by path but not there yet, though another tenant's hook shares it", () => {
    const shared = join(root, 'shared-hooks');
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, 'early.lang'), '');
    const earlyOwn = hookOwnPaths({
      command: ['lang', join(shared, 'early.lang')],
      cwd: root,
      explicitCwd: false,
      readPaths: [],
      writePaths: [],
    });
    for (const command of [['./shared-hooks/late.lang'], ['lang', 'shared-hooks/late.lang']]) {
      const hide = plan({ command, foreignPaths: earlyOwn }).hide;
      expect(hide.map((h) => h.path)).not.toContain(shared);
      expect(hide).toContainEqual({ path: join(shared, 'early.lang'), dir: false });
    }
  });

  it("covers the directory another tenant's script named by path will appear in, before it is deployed", () => {
    const pending = join(root, 'hooks', 'pending');
    mkdirSync(pending, { recursive: true });
    const own = (command: string[]) =>
      hookOwnPaths({ command, cwd: root, explicitCwd: false, readPaths: [], writePaths: [] });
    for (const command of [['lang', 'hooks/pending/hook.lang', '--flag'], ['./hooks/pending/hook.lang']]) {
      expect(own(command)).toEqual([pending]);
      expect(plan({ foreignPaths: own(command) }).hide).toContainEqual({ path: pending, dir: true });
    }
    // Deployed, it brings the same directory (and itself): nothing changes for the other hooks.
    writeFileSync(join(pending, 'hook.lang'), '');
    expect(own(['lang', 'hooks/pending/hook.lang'])).toEqual([join(pending, 'hook.lang'), pending]);
    // A directory that is not there either leaves nothing to cover yet.
    expect(own(['lang', 'hooks/later/hook.lang'])).toEqual([]);
  });

  it('keeps HOME when the config sets it', () => {
    expect(plan().keepHome).toBe(false);
    expect(plan({ env: { HOME: '/srv/home' } }).keepHome).toBe(true);
  });
});

describe('deniedToSandboxUser: what uid 65534 cannot use (setpriv identity)', () => {
  it('names paths whose permission bits keep uid 65534 out, and what it needs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-perm-'));
    const mk = (name: string, mode: number, isDir = false) => {
      const p = join(dir, name);
      if (isDir) mkdirSync(p);
      else writeFileSync(p, '');
      chmodSync(p, mode);
      return p;
    };
    const open = mk('open.mjs', 0o644);
    const closed = mk('closed.mjs', 0o600);
    const privateDir = mk('private', 0o700, true);
    const listable = mk('listable', 0o755, true);
    const shared = mk('shared', 0o777, true);
    expect(
      deniedToSandboxUser([
        { path: open, write: false },
        { path: closed, write: false },
        { path: privateDir, write: false },
        { path: listable, write: false },
        { path: listable, write: true },
        { path: shared, write: true },
        { path: join(dir, 'missing'), write: false },
      ]),
    ).toEqual([
      `${closed} (needs read for uid 65534)`,
      `${privateDir} (needs read for uid 65534)`,
      `${listable} (needs write for uid 65534)`,
    ]);
  });
});

// ---- a real gateway (the CLI, its own process) with real hooks in real bwrap -----------------

const FAKE_GATEWAY_SECRET = 'fake-globex-hs256-secret-from-the-gateway-env-0123456789';
const ACME_FILE_SECRET = 'acme-hs256-secret-from-a-file-0123456789abcdef';
const GLOBEX_MARKER = 'globex-hook-source-marker';

interface Fixture {
  dir: string;
  config: string;
  secretFile: string;
  globexHook: string;
  data: string;
}

/** A config dir as an admin would lay it out: config, key file and both tenants' hooks together. */
function fixture(sandbox: string): Fixture {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookgate-sandbox-')));
  // uid 65534 must be able to enter the hook's directory (mkdtemp makes it 0700).
  chmodSync(dir, 0o755);
  for (const d of ['acme', 'globex', 'keys', 'data']) mkdirSync(join(dir, d), { mode: 0o755 });
  chmodSync(join(dir, 'data'), 0o777);
  copyFileSync(SPY, join(dir, 'acme', 'spy.mjs'));
  // The marker after the shebang, which must stay the first line: before it, the hook would not parse
  // and would crash and restart for the whole test (slow on a loaded machine, and no real hook to hide).
  const [shebang, ...source] = readFileSync(MISBEHAVING, 'utf8').split('\n');
  writeFileSync(join(dir, 'globex', 'hook.mjs'), [shebang, `// ${GLOBEX_MARKER}`, ...source].join('\n'));
  // World-readable on purpose: only the sandbox's covering keeps them from the hook.
  writeFileSync(join(dir, 'keys', 'acme.key'), `${ACME_FILE_SECRET}\n`, { mode: 0o644 });
  const spy = (extra: object = {}) => ({
    backend: { type: 'stdio', command: [process.execPath, 'acme/spy.mjs'], ...extra },
    tools: ['spy'],
    timeout_ms: 8000,
  });
  const doc = {
    server: { sandbox, log_level: 'info' },
    tenants: {
      acme: {
        auth: { keys: [{ kid: 'a1', alg: 'HS256', secret: 'file:keys/acme.key' }] },
        hooks: {
          spy: spy({ sandbox: { write_paths: ['data'] } }),
          offline: spy({ sandbox: { network: false } }),
        },
      },
      globex: {
        auth: { keys: [{ kid: 'g1', alg: 'HS256', secret: 'env:GLOBEX_HOOK_SECRET' }] },
        hooks: { h: { backend: { type: 'stdio', command: [process.execPath, 'globex/hook.mjs'] } } },
      },
    },
  };
  const config = join(dir, 'hookgate.yaml');
  writeFileSync(config, JSON.stringify(doc, null, 2), { mode: 0o644 });
  return {
    dir,
    config,
    secretFile: join(dir, 'keys', 'acme.key'),
    globexHook: join(dir, 'globex', 'hook.mjs'),
    data: join(dir, 'data'),
  };
}

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

/** `hookgate serve` as its own process, with a secret in its environment; resolves once it listens. */
/** Root can also start the gateway as an unprivileged user, to try the `userns` identity for real. */
const SETPRIV =
  process.getuid?.() === 0 ? ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p)) : undefined;

async function serve(f: Fixture, env: Record<string, string> = {}, unprivileged = false) {
  const argv = [BIN, 'serve', '--config', f.config, '--port', '0'];
  const [command, ...args] =
    unprivileged && SETPRIV
      ? [SETPRIV, '--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, ...argv]
      : [process.execPath, ...argv];
  const child = spawn(command, args, {
    cwd: REPO,
    env: { ...process.env, GLOBEX_HOOK_SECRET: FAKE_GATEWAY_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (b) => {
    out += b;
  });
  child.stderr!.on('data', (b) => {
    err += b;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, out: () => out, err: () => err };
}

async function listening(gw: Awaited<ReturnType<typeof serve>>): Promise<string> {
  // Until it listens or exits: a gateway that cannot start (e.g. a user that cannot read the
  // checkout) fails the test at once with what it said, not after a silent minute.
  let exit: string | undefined;
  void gw.exited.then((code) => {
    exit = `exited (${code})`;
  });
  await expect
    .poll(() => gw.out().includes('hookgate listening') || exit !== undefined, { timeout: 60_000 })
    .toBe(true);
  if (!gw.out().includes('hookgate listening'))
    throw new Error(`the gateway ${exit} before listening:\n${gw.err().slice(-2000)}`);
  const line = gw
    .out()
    .split('\n')
    .find((l) => l.includes('hookgate listening'))!;
  return JSON.parse(line).url;
}

async function spyFrom(f: Fixture, url: string, hook: string, args: object) {
  const { config } = loadConfigFile(f.config, { GLOBEX_HOOK_SECRET: FAKE_GATEWAY_SECRET });
  const token = await signDevToken(config.tenants.get('acme')!, { hooks: ['*'], ttlSeconds: 300 });
  // The hook process may still be saying hello right after the gateway started.
  let body: any;
  await expect
    .poll(
      async () => {
        const res = await fetch(`${url}/v1/tenants/acme/hooks/${hook}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'hook.before_tool',
            params: { tool: 'spy', arguments: args },
          }),
        });
        body = await res.json();
        return body.result?.action;
      },
      // A sandboxed hook's first spawn can fail on a loaded machine and wait out the backend's
      // restart backoff: a bound far above the seconds a start takes.
      { timeout: 90_000, interval: 200 },
    )
    .toBe('respond');
  return JSON.parse(body.result.result.for_llm);
}

async function stop(gw: Awaited<ReturnType<typeof serve>>) {
  gw.child.kill('SIGTERM');
  await gw.exited;
  children.delete(gw.child);
}

describe('a hosted stdio hook cannot reach the secrets the gateway needs', () => {
  const gateways = [
    { as: 'the gateway as it runs here', unprivileged: false },
    ...(SETPRIV ? [{ as: 'an unprivileged gateway (uid 65534, user namespace)', unprivileged: true }] : []),
  ];
  for (const { as, unprivileged } of gateways)
    it.skipIf(!bwrapAvailable)(
      `sandboxed (the default), ${as}: not the gateway's environ, the config, its file: secret, nor another tenant's hook${why}`,
      async () => {
        const f = fixture('auto');
        const gw = await serve(f, {}, unprivileged);
        const url = await listening(gw);
        const targets = [
          `/proc/${gw.child.pid}/environ`,
          '/proc/{ppid}/environ',
          '/proc/1/environ',
          f.config,
          f.secretFile,
          f.globexHook,
        ];
        const seen = await spyFrom(f, url, 'spy', { read: targets, url: `${url}/healthz`, write: f.data });
        const offline = await spyFrom(f, url, 'offline', { read: [], url: `${url}/healthz` });
        await stop(gw);

        const leaked = JSON.stringify(seen);
        expect(leaked).not.toContain(FAKE_GATEWAY_SECRET);
        expect(leaked).not.toContain(ACME_FILE_SECRET);
        expect(leaked).not.toContain(GLOBEX_MARKER);
        expect(leaked).not.toContain('GLOBEX_HOOK_SECRET');
        // The gateway's pid does not exist in the hook's PID namespace.
        expect(seen.reads[`/proc/${gw.child.pid}/environ`]).toEqual({ error: 'ENOENT' });
        // Covered files are a device node on a nodev mount: nothing to read.
        for (const p of [f.config, f.secretFile, f.globexHook])
          expect(seen.reads[p]).toEqual({ error: 'EACCES' });
        expect(seen.uid).toBe(SANDBOX_UID);
        expect(seen.pid).toBeLessThan(10);
        expect(seen.home).toBe('/tmp');
        expect(seen.writeCwd).toMatch(/^(EROFS|EACCES)$/);
        expect(seen.write).toBe('ok');
        expect(readFileSync(join(f.data, 'spy-was-here'), 'utf8')).toBe('x');
        // The default network is outbound only: the gateway on the host's loopback is out of reach.
        expect(seen.network).toMatch(/^failed/);
        expect(offline.network).toMatch(/^failed/);
        const started = gw
          .out()
          .split('\n')
          .find((l) => l.includes('stdio hooks sandboxed'));
        const identity = unprivileged || process.getuid?.() !== 0 ? 'userns' : 'setpriv';
        expect(JSON.parse(started!)).toMatchObject({ sandbox: 'bubblewrap', identity });
        // The other tenant's hook whose source was out of reach was running, sandboxed, all along.
        const lines = gw
          .out()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l));
        expect(lines).toContainEqual(
          expect.objectContaining({ tenant: 'globex', hook: 'h', msg: 'hook process ready' }),
        );
        const untilShutdown = lines.slice(
          0,
          lines.findIndex((l) => /^shutting down/.test(l.msg)),
        );
        // It never exited, but for bwrap's own transient failure to set up the new namespace's
        // loopback under many concurrent namespace creations (retried by the backend): every exit
        // of globex's hook must come with that line on its stderr, and nothing else may end it.
        const globex = untilShutdown.filter((l) => l.tenant === 'globex');
        const exits = globex.filter((l) => l.msg === 'hook process exited').length;
        const bwrapLoopback = globex.filter(
          (l) => l.msg === 'hook stderr' && /^bwrap: loopback: Failed RTM_NEWADDR/.test(String(l.stderr)),
        ).length;
        expect(exits).toBeLessThanOrEqual(bwrapLoopback);
      },
      // Measured at 2-4 s; the bound is for a machine many times busier.
      240_000,
    );

  it('unsandboxed (server.sandbox: off), the same hook reads all of it: the control', async () => {
    const f = fixture('off');
    const gw = await serve(f);
    const url = await listening(gw);
    const environ = `/proc/${gw.child.pid}/environ`;
    const seen = await spyFrom(f, url, 'spy', { read: [environ, f.config, f.secretFile, f.globexHook] });
    await stop(gw);
    expect(seen.reads[environ].text).toContain(FAKE_GATEWAY_SECRET);
    expect(seen.reads[f.config].text).toContain('keys/acme.key');
    expect(seen.reads[f.secretFile].text).toContain(ACME_FILE_SECRET);
    expect(seen.reads[f.globexHook].text).toContain(GLOBEX_MARKER);
    expect(gw.out()).toContain('server.sandbox is off');
  }, 60_000);
});

describe('server.sandbox when bubblewrap cannot be used', () => {
  it('required: refuses to start, naming why', async () => {
    const f = fixture('required');
    const gw = await serve(f, { PATH: '/nonexistent' });
    expect(await gw.exited).toBe(1);
    children.delete(gw.child);
    expect(gw.err()).toContain(
      'server.sandbox is required but bubblewrap cannot be used: bwrap is not on PATH',
    );
  }, 30_000);

  it('auto: starts, with a loud warning', async () => {
    const f = fixture('auto');
    const gw = await serve(f, { PATH: '/nonexistent' });
    await listening(gw);
    await stop(gw);
    const warning = gw
      .out()
      .split('\n')
      .find((l) => l.includes('SANDBOX UNAVAILABLE'));
    expect(JSON.parse(warning!)).toMatchObject({
      level: 'warn',
      sandbox: 'unavailable',
      reason: expect.stringContaining('bwrap'),
    });
  }, 30_000);
});

/** Host pids whose command line holds `marker`: the hook and its bwrap. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

describe.skipIf(!bwrapAvailable)(`a sandboxed hook's life: crash, restart, shutdown${why}`, () => {
  it('answers by the failure mode when the sandboxed hook dies, restarts it, and leaves no process behind on close', async () => {
    const marker = `sandbox-life-${process.pid}-${Date.now()}`;
    const gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          h: {
            backend: { type: 'stdio', command: [process.execPath, MISBEHAVING, marker] },
            tools: ['ok', 'crash', 'pid'],
          },
        }),
      },
    });
    try {
      const ok = await gw.call('h', 'hook.before_tool', { tool: 'ok', arguments: {} });
      expect(ok.result.result.for_llm).toBe('ok ok');
      // In its own PID namespace, the hook is not the host pid the gateway spawned.
      expect(
        Number((await gw.call('h', 'hook.before_tool', { tool: 'pid' })).result.result.for_llm),
      ).toBeLessThan(10);
      expect(processesWith(marker).length).toBeGreaterThanOrEqual(2);
      const crash = await gw.call('h', 'hook.before_tool', { tool: 'crash', arguments: {} });
      expect(crash.result).toEqual({ action: 'continue' });
      await expect
        .poll(async () => (await gw.call('h', 'hook.before_tool', { tool: 'ok' })).result.result?.for_llm, {
          timeout: 10_000,
          interval: 100,
        })
        .toBe('ok ok');
      expect(gw.logs.lines.some((l) => l.msg === 'hook process exited' && l.hook === 'h')).toBe(true);
    } finally {
      await gw.close();
    }
    await expect.poll(() => processesWith(marker)).toEqual([]);
  }, 30_000);
});

describe.skipIf(!bwrapAvailable)(
  `a hook run by its #! line, from a directory another tenant's hook shares${why}`,
  () => {
    it('starts, deployed before the gateway or only after it, and still cannot read the other hook', async () => {
      // The reported layout: command [./hooks/<script>] and another tenant's hook in hooks/. The
      // directory must not be covered for the script (its spawns failed "setpriv: failed to execute
      // ./hooks/<script>: Permission denied"), only the other hook's file. The interpreter its #!
      // line names is shown by read_paths, as docs/sandbox.md says; the other tenant runs the same
      // Node by name from its PATH (a program named by its path in a command is that hook's own,
      // and would be covered here: see the docs).
      const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookgate-shebang-')));
      chmodSync(dir, 0o755);
      mkdirSync(join(dir, 'hooks'), { mode: 0o755 });
      const spy = readFileSync(SPY, 'utf8').replace(/^#!.*\n/, '');
      const deploy = (name: string) =>
        writeFileSync(join(dir, 'hooks', name), `#!${process.execPath}\n${spy}`, { mode: 0o755 });
      deploy('early.mjs');
      copyFileSync(SPY, join(dir, 'hooks', 'other.mjs'));
      const nodeBin = dirname(realpathSync(process.execPath));
      const byShebang = (script: string) => ({
        backend: {
          type: 'stdio',
          command: [`./hooks/${script}`],
          sandbox: { read_paths: [dirname(nodeBin)] },
        },
        tools: ['spy'],
      });
      const config = join(dir, 'hookgate.json');
      writeFileSync(
        config,
        JSON.stringify({
          server: { port: 0, sandbox: 'required' },
          tenants: {
            acme: {
              auth: {
                keys: [{ kid: 'a1', alg: 'HS256', secret: 'acme-shebang-secret-0123456789abcdefghij' }],
              },
              hooks: { early: byShebang('early.mjs'), late: byShebang('late.mjs') },
            },
            globex: {
              auth: {
                keys: [{ kid: 'g1', alg: 'HS256', secret: 'globex-shebang-secret-0123456789abcdefgh' }],
              },
              hooks: {
                other: {
                  backend: {
                    type: 'stdio',
                    command: [basename(process.execPath), 'hooks/other.mjs'],
                    env: { PATH: `${nodeBin}:/usr/bin:/bin` },
                  },
                },
              },
            },
          },
        }),
        { mode: 0o644 },
      );
      const loaded = loadConfigFile(config);
      const gw = await startGateway({
        config: loaded.config,
        baseDir: loaded.baseDir,
        privatePaths: loaded.privatePaths,
        log: createNodeLogger('info', new LogCapture()),
      });
      try {
        const token = await signDevToken(loaded.config.tenants.get('acme')!, {
          hooks: ['*'],
          ttlSeconds: 300,
        });
        const reads = async (hook: string, path: string) => {
          let body: any;
          // Until the hook is up (the late one: until it is deployed and the backend's retry comes),
          // a call gets the failure answer: ask until the hook answers itself.
          await expect
            .poll(
              async () => {
                const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}`, {
                  method: 'POST',
                  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
                  body: JSON.stringify({
                    jsonrpc: '2.0',
                    id: 1,
                    method: 'hook.before_tool',
                    params: { tool: 'spy', arguments: { read: [path] } },
                  }),
                });
                body = await res.json();
                return body.result?.action;
              },
              { timeout: 90_000, interval: 200 },
            )
            .toBe('respond');
          return JSON.parse(body.result.result.for_llm).reads[path];
        };
        const other = join(dir, 'hooks', 'other.mjs');
        expect(await reads('early', other)).toEqual({ error: 'EACCES' });
        deploy('late.mjs');
        expect(await reads('late', other)).toEqual({ error: 'EACCES' });
      } finally {
        await gw.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  },
);

describe.skipIf(!bwrapAvailable)(`a hook's private /tmp is no larger than its memory_mb${why}`, () => {
  // A tmpfs is half the host's memory by default, and only a memory cgroup counts what a hook keeps
  // in it: under rlimits (Docker's read-only cgroup mount, an unprivileged gateway without a
  // delegated cgroup) one hook's /tmp could take the host's memory from every other.
  it('refuses writes past its size, in a real bwrap (no cgroup involved)', () => {
    const sandbox = detectSandbox();
    if (!sandbox.available) throw new Error(sandbox.reason); // under CI, where it must work
    expect(sandbox.tmpSize).toBe(true);
    const sh = ['/bin/sh', '/usr/bin/sh'].find((p) => existsSync(p))!;
    const write = (tmpBytes: number | undefined) => {
      const wrapped = wrapInSandbox(
        {
          command: sh,
          // 3 MiB into a 1 MiB /tmp; "wrote" only if every byte went in.
          args: ['-c', 'head -c 3145728 /dev/zero > /tmp/fill && echo wrote'],
          cwd: '/',
          env: { PATH: '/usr/bin:/bin' },
        },
        {
          bwrap: sandbox.bwrap,
          identity: sandbox.identity,
          host: sandbox.host,
          readOnly: [],
          writable: [],
          hide: [],
          network: true,
          cwd: '/',
          keepHome: false,
          ...(tmpBytes === undefined ? {} : { tmpBytes }),
        },
      );
      return spawnSync(wrapped.command, wrapped.args, { env: wrapped.env, encoding: 'utf8' });
    };
    const sized = write(2 ** 20);
    expect(sized.stdout).not.toContain('wrote');
    expect(sized.stderr).toMatch(/No space left on device/);
    // The control: the same write into bwrap's default /tmp goes through.
    expect(write(undefined).stdout).toContain('wrote');
  });

  it("is sized to each hook's memory_mb by the gateway", async () => {
    const spy = (sandbox: object) => ({
      backend: { type: 'stdio', command: [process.execPath, SPY], sandbox },
      tools: ['spy'],
    });
    const gw = await startTestGateway({
      server: { sandbox: 'required' },
      tenants: { acme: tenantDoc({ small: spy({ limits: { memory_mb: 48 } }), usual: spy({}) }) },
    });
    try {
      // What each hook itself sees of its /tmp, in the sandbox the gateway spawned it in.
      const tmpBytes = async (hook: string) => {
        const answer = await gw.call(hook, 'hook.before_tool', { tool: 'spy', arguments: {} });
        return JSON.parse(answer.result.result.for_llm).tmpBytes;
      };
      expect(await tmpBytes('small')).toBe(48 * 2 ** 20);
      expect(await tmpBytes('usual')).toBe(512 * 2 ** 20);
    } finally {
      await gw.close();
    }
  }, 60_000);
});
