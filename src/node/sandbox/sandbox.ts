import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  lstatSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, resolve, sep } from 'node:path';
import type { SpawnSpec } from '../../backends/types.js';

/**
 * Stdio hooks in a bubblewrap sandbox: a mount namespace with a read-only view of the system, the
 * hook's interpreter and working directory and the paths its config names; its own PID, IPC and UTS
 * namespaces (the gateway's /proc/<pid> does not exist in there); no capabilities; uid 65534.
 *
 * Two ways to become uid 65534, chosen by a probe at startup:
 * - `setpriv` (gateway runs as root): bwrap builds the mounts as root, then setpriv switches to the
 *   real host uid 65534 and drops every capability. The hook is a different user on the host too.
 * - `userns` (gateway unprivileged): a user namespace maps the gateway's uid to 65534 inside. On the
 *   host the hook still runs as the gateway's uid; the namespaces are what keep it out.
 */

export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;

export type SandboxIdentity = { kind: 'setpriv'; setpriv: string } | { kind: 'userns' };

/** The host's top-level system directories: bound read-only, or recreated as the same symlinks. */
export interface HostSystem {
  dirs: readonly string[];
  symlinks: readonly { path: string; target: string }[];
}

export type SandboxSupport =
  | {
      available: true;
      bwrap: string;
      identity: SandboxIdentity;
      host: HostSystem;
      /** true when hooks can get a network namespace of their own, else why they cannot. */
      networkIsolation: true | string;
      /** bwrap can size the private /tmp (`--size`, which older versions do not have). */
      tmpSize?: boolean;
    }
  | { available: false; reason: string };

/** Everything `wrapInSandbox` needs, already resolved against the host: it does no I/O itself. */
export interface SandboxPolicy {
  bwrap: string;
  identity: SandboxIdentity;
  host: HostSystem;
  /** Real paths bound read-only at the same path: interpreter prefix, cwd, read_paths. */
  readOnly: readonly string[];
  /** Real paths bound writable: write_paths. */
  writable: readonly string[];
  /** Real paths inside the view that are covered up: the config, `file:` secrets, other tenants' hooks. */
  hide: readonly { path: string; dir: boolean }[];
  network: boolean;
  /** The hook's working directory (a real path inside `readOnly`). */
  cwd: string;
  /** The hook's config sets HOME itself; otherwise HOME is the sandbox's private /tmp. */
  keepHome: boolean;
  /** `setpriv` identity: the host uid to run as, when not 65534 (a uid per hook, sandbox-limits.ts). */
  uid?: number;
  /**
   * The private /tmp's size in bytes (the hook's `memory_mb`). A tmpfs is otherwise half the host's
   * memory, and only a memory cgroup counts what a hook keeps there: under rlimits it was unbounded.
   */
  tmpBytes?: number;
  /**
   * A session of its own for the hook (bwrap `--new-session`; default true). It is needed only while
   * the gateway has a controlling terminal: a hook in the gateway's session could open it as
   * /dev/tty and push input into it (TIOCSTI, CVE-2017-5226). Without one there is nothing to
   * reach, and a session of its own costs latency: where the kernel schedules by session
   * (sched_autogroup), the hook becomes a scheduling group of its own, which put a sandboxed hook's
   * sequential p50 above an unsandboxed one's at the same CPU per call (docs/performance.md: pinned
   * runs point at where it is woken).
   */
  newSession?: boolean;
}

const SYSTEM_TOP = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** What of /etc a program needs to link, resolve names, speak TLS and know the time. */
const ETC = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/pki',
  '/etc/crypto-policies',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/nsswitch.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/passwd',
  '/etc/group',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/mime.types',
];

/**
 * The bwrap argv for one spawn. Pure: the same spec and policy always give the same argv.
 *
 * The environment is handed to bwrap by `spawn` (bwrap passes it on), not as `--setenv` arguments:
 * a hook's env often carries its API keys, and any local user can read a process's argv.
 */
export function wrapInSandbox(spec: SpawnSpec, policy: SandboxPolicy): SpawnSpec {
  const a: string[] = ['--die-with-parent'];
  if (policy.newSession !== false) a.push('--new-session');
  a.push('--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try');
  if (!policy.network) a.push('--unshare-net');
  if (policy.identity.kind === 'userns') {
    a.push('--unshare-user', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_GID), '--cap-drop', 'ALL');
  } else {
    // setpriv needs these three to switch user and empty its bounding set; it drops them all itself.
    a.push('--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID');
    a.push('--cap-add', 'CAP_SETPCAP');
  }

  for (const dir of policy.host.dirs) a.push('--ro-bind', dir, dir);
  for (const link of policy.host.symlinks) a.push('--symlink', link.target, link.path);
  a.push('--proc', '/proc', '--dev', '/dev');
  a.push('--perms', '1777');
  if (policy.tmpBytes !== undefined) a.push('--size', String(policy.tmpBytes));
  a.push('--tmpfs', '/tmp');
  // Directories bwrap creates on its own are not searchable by uid 65534 in every version.
  a.push('--perms', '0755', '--dir', '/etc');
  for (const entry of ETC) a.push('--ro-bind-try', entry, entry);

  // Parents inside these exist already (or cannot be made). /tmp is not among them: it is the
  // sandbox's own tmpfs, where a bound path's parents (a checkout under /tmp) must be made searchable.
  const bound = [...policy.host.dirs, '/proc', '/dev', '/etc'];
  const made = new Set<string>(['/tmp']);
  const binds = [
    ...policy.readOnly.map((p) => ({ p, flag: '--ro-bind' })),
    ...policy.writable.map((p) => ({ p, flag: '--bind' })),
  ].sort((x, y) => depth(x.p) - depth(y.p) || x.p.localeCompare(y.p));
  for (const { p, flag } of binds) {
    for (const parent of ancestors(p)) {
      if (bound.some((b) => within(parent, b)) || made.has(parent)) continue;
      made.add(parent);
      a.push('--perms', '0755', '--dir', parent);
    }
    a.push(flag, p, p);
    bound.push(p);
  }
  for (const h of policy.hide) {
    if (h.dir) a.push('--perms', '0000', '--tmpfs', h.path, '--remount-ro', h.path);
    else a.push('--ro-bind', '/dev/null', h.path);
  }
  a.push('--chdir', policy.cwd, '--');

  if (policy.identity.kind === 'setpriv') {
    const uid = policy.uid ?? SANDBOX_UID;
    a.push(policy.identity.setpriv, `--reuid=${uid}`, `--regid=${SANDBOX_GID}`, '--clear-groups');
    a.push('--bounding-set=-all', '--inh-caps=-all', '--no-new-privs', '--');
  }
  a.push(spec.command, ...spec.args);

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env)) if (v !== undefined) env[k] = v;
  if (!policy.keepHome) env.HOME = '/tmp';
  return { command: policy.bwrap, args: a, cwd: spec.cwd, env };
}

export interface HookSandboxInput {
  command: readonly string[];
  /** Absolute working directory of the hook. */
  cwd: string;
  /** The hook's configured env (secrets resolved): its PATH finds the command, its HOME is kept. */
  env: Readonly<Record<string, string>>;
  readPaths: readonly string[];
  writePaths: readonly string[];
  network: boolean;
  /** Absolute paths to cover wherever they fall inside this hook's view. */
  privatePaths: readonly string[];
  /** Absolute paths of other tenants' hooks: covered unless they hold a path this hook needs. */
  foreignPaths: readonly string[];
}

/** Resolves one hook's view against the host (real paths, the interpreter's prefix, what to cover). */
export function planSandbox(
  input: HookSandboxInput,
  support: SandboxSupport & { available: true },
): SandboxPolicy {
  const systemRoots = systemRealRoots(support.host);
  const isSystem = (p: string) => systemRoots.some((r) => within(p, r));
  const cwd = real(input.cwd);
  const found = findExecutable(input.command[0], input.env.PATH ?? process.env.PATH ?? '', input.cwd);
  const own = [cwd, ...input.readPaths.map(real), ...input.writePaths.map(real)];
  const prefixes: string[] = [];
  if (found) {
    for (const p of [found, real(found)]) {
      own.push(p);
      if (!isSystem(p)) prefixes.push(installPrefix(p));
    }
  }
  // The files the command names (the hook's script, given by path) are shown with the directory they
  // are in, read-only: a script usually imports what sits next to it.
  const commandDirs: string[] = [];
  // A script the command names by path but that is not deployed yet still belongs to this hook:
  // covering the directory it will appear in (another tenant's hook sits there too) would make its
  // first start fail with EACCES once it is there, until the next restart plans the view again.
  for (const arg of input.command.slice(0, 1).filter((c) => c.includes('/')))
    own.push(resolve(input.cwd, arg));
  for (const arg of input.command.slice(1)) {
    const p = resolve(input.cwd, arg);
    if (!exists(p)) {
      if (arg.includes('/')) own.push(p);
      continue;
    }
    const r = real(p);
    own.push(r);
    commandDirs.push(isDir(r) ? r : dirname(r));
  }
  const readOnly = unique([...prefixes, cwd, ...commandDirs, ...input.readPaths.map(real)]).filter(
    (p) => !isSystem(p),
  );
  const writable = unique(input.writePaths.map(real));
  const view = [...readOnly, ...writable];
  const inView = (p: string) => view.some((v) => within(p, v));
  // A secret can sit anywhere the sandbox shows, /usr/local/etc and /etc/ssl included.
  const visible = (p: string) => inView(p) || isSystem(p) || ETC.some((e) => within(p, e));

  const hide = new Map<string, boolean>();
  for (const p of input.privatePaths.filter(exists).map(real)) if (visible(p)) hide.set(p, isDir(p));
  for (const p of input.foreignPaths.filter(exists).map(real)) {
    // The system is shared by all; and covering an ancestor of something this hook needs would
    // take it away from this hook too.
    if (inView(p) && !own.some((o) => within(o, p))) hide.set(p, isDir(p));
  }
  return {
    bwrap: support.bwrap,
    identity: support.identity,
    host: support.host,
    readOnly,
    writable,
    // Inside a covered directory there is nothing left to cover (nor a place to mount onto).
    hide: [...hide]
      .filter(([path]) => ![...hide].some(([other, dir]) => dir && other !== path && within(path, other)))
      .map(([path, dir]) => ({ path, dir })),
    network: input.network,
    cwd,
    keepHome: 'HOME' in input.env,
    // Asked at every spawn, as the plan is: a terminal the gateway has now is what matters.
    newSession: hasControllingTerminal(),
  };
}

/**
 * Whether this process has a controlling terminal: tty_nr in /proc/self/stat (`stat` for tests).
 * When that cannot be read, yes: the hook then gets a session of its own, as it always did.
 */
export function hasControllingTerminal(stat = '/proc/self/stat'): boolean {
  try {
    const text = readFileSync(stat, 'utf8');
    // After the command name (which may hold spaces): state, ppid, pgrp, session, tty_nr.
    const ttyNr = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[4]);
    return !Number.isInteger(ttyNr) || ttyNr !== 0;
  } catch {
    return true;
  }
}

/**
 * The paths a hook brings of its own, to be covered in other tenants' sandboxes: its explicit cwd,
 * the files its command names and the directories they are in (a hook's modules usually sit next to
 * it; `planSandbox` keeps a directory visible that holds anything the other hook needs itself), its
 * read and write paths. A bare command[0] is an interpreter found on PATH, shared, so not that.
 * A script named by path but not deployed yet brings the directory it will appear in, when that
 * exists: a hook already running when the script arrives must not read it (the file itself cannot
 * be covered before it is there, and a running hook's view is only planned again at a reload).
 */
export function hookOwnPaths(hook: {
  command: readonly string[];
  cwd: string;
  explicitCwd: boolean;
  readPaths: readonly string[];
  writePaths: readonly string[];
}): string[] {
  const out = [...hook.readPaths, ...hook.writePaths];
  if (hook.explicitCwd) out.push(hook.cwd);
  hook.command.forEach((arg, i) => {
    if (i === 0 && !arg.includes('/')) return;
    const p = resolve(hook.cwd, arg);
    if (!exists(p)) {
      if (arg.includes('/') && isDir(dirname(p))) out.push(dirname(p));
      return;
    }
    out.push(p);
    if (!isDir(p)) out.push(dirname(p));
  });
  return out;
}

/**
 * With the `setpriv` identity the hook is the real host uid 65534, so plain file permissions apply:
 * the paths it is given must be readable (writable) by that uid. Returns those that are not, each
 * with what is missing, so startup can say so instead of the hook failing with EACCES.
 */
export function deniedToSandboxUser(paths: readonly { path: string; write: boolean }[]): string[] {
  const denied: string[] = [];
  for (const { path, write } of paths) {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    const shift = st.uid === SANDBOX_UID ? 6 : st.gid === SANDBOX_GID ? 3 : 0;
    const bits = (Number(st.mode) >> shift) & 7;
    const need = (write ? 2 : 4) | (st.isDirectory() ? 1 : 0);
    if ((bits & need) !== need)
      denied.push(`${path} (needs ${write ? 'write' : 'read'} for uid ${SANDBOX_UID})`);
  }
  return denied;
}

let cached: SandboxSupport | undefined;

/** Whether bubblewrap works here and how; probed once (bwrap with the real flags runs `id -u`). */
export function detectSandbox(): SandboxSupport {
  cached ??= probe();
  return cached;
}

function probe(): SandboxSupport {
  if (process.platform !== 'linux')
    return { available: false, reason: `bubblewrap needs Linux (this is ${process.platform})` };
  const path = process.env.PATH ?? '/usr/bin:/bin';
  const bwrap = findExecutable('bwrap', path, '/');
  if (!bwrap) return { available: false, reason: 'bwrap is not on PATH (install bubblewrap)' };
  const id = findExecutable('id', '/usr/bin:/bin', '/');
  if (!id) return { available: false, reason: 'no id(1) in /usr/bin or /bin to probe with' };
  const host = hostSystem();
  const identities: SandboxIdentity[] = [];
  const setpriv = findExecutable('setpriv', '/usr/bin:/bin:/usr/sbin:/sbin', '/');
  if (process.getuid?.() === 0 && setpriv) identities.push({ kind: 'setpriv', setpriv });
  identities.push({ kind: 'userns' });
  const failures: string[] = [];
  for (const identity of identities) {
    const base = { bwrap, identity, host, readOnly: [], writable: [], hide: [], cwd: '/', keepHome: false };
    const why = runsAsSandboxUser({ ...base, network: true }, id);
    if (why) {
      failures.push(`${identity.kind}: ${why}`);
      continue;
    }
    // A network namespace of its own can need more (in Docker, CAP_NET_ADMIN for its loopback).
    const netWhy = runsAsSandboxUser({ ...base, network: false }, id);
    const tmpSize = runsAsSandboxUser({ ...base, network: true, tmpBytes: 2 ** 20 }, id) === undefined;
    return { available: true, bwrap, identity, host, networkIsolation: netWhy ?? true, tmpSize };
  }
  return { available: false, reason: `${bwrap} does not work here (${failures.join('; ')})` };
}

/** Runs `id -u` in the sandbox `policy` describes; undefined when it ran as uid 65534, else why not. */
function runsAsSandboxUser(policy: SandboxPolicy, id: string): string | undefined {
  const spec = wrapInSandbox({ command: id, args: ['-u'], cwd: '/', env: { PATH: '/usr/bin:/bin' } }, policy);
  const r = spawnSync(spec.command, spec.args, {
    cwd: '/',
    env: spec.env,
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.status === 0 && r.stdout.trim() === String(SANDBOX_UID)) return undefined;
  const why = (r.error?.message ?? r.stderr ?? '').trim() || `exit ${r.status ?? r.signal}`;
  return why.split('\n')[0];
}

function hostSystem(): HostSystem {
  const dirs: string[] = [];
  const symlinks: { path: string; target: string }[] = [];
  for (const p of SYSTEM_TOP) {
    try {
      const st = lstatSync(p);
      if (st.isSymbolicLink()) symlinks.push({ path: p, target: readlinkSync(p) });
      else if (st.isDirectory()) dirs.push(p);
    } catch {
      // Not on this host (lib32, libx32, often sbin as a directory): nothing to bind.
    }
  }
  return { dirs, symlinks };
}

function systemRealRoots(host: HostSystem): string[] {
  return unique([...host.dirs, ...host.symlinks.map((l) => l.path)].filter(exists).map(real));
}

/**
 * Where the interpreter's installation starts: `<prefix>/bin/node` → `<prefix>` (so its lib/ comes
 * along), likewise pyenv's `shims/`. Never a home directory itself: that would expose all of it.
 */
function installPrefix(file: string): string {
  const dir = dirname(file);
  if (!['bin', 'sbin', 'shims'].includes(basename(dir))) return dir;
  const prefix = dirname(dir);
  const homes = [homedir(), '/root', '/'];
  if (homes.includes(prefix) || /^\/home\/[^/]+$/.test(prefix)) return dir;
  return prefix;
}

/** execvp's search: a name with a slash is a path (relative to cwd), else the first hit on PATH. */
export function findExecutable(command: string | undefined, path: string, cwd: string): string | undefined {
  if (!command) return undefined;
  const candidates = command.includes('/')
    ? [resolve(cwd, command)]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => resolve(cwd, d, command));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // Not here; the next PATH entry may have it.
    }
  }
  return undefined;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `p` is `root` or below it. */
function within(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let d = dirname(p); d !== dirname(d); d = dirname(d)) out.unshift(d);
  return out;
}

function depth(p: string): number {
  return p.split(sep).length;
}

function unique(paths: string[]): string[] {
  return [...new Set(paths.filter((p) => isAbsolute(p)))];
}
