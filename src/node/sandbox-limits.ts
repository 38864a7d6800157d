import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpawnSpec } from '../backends/types.js';
import { HookgateError } from '../lib/errors.js';
import type { Logger } from '../server/logger.js';
import { findExecutable } from './sandbox.js';

/**
 * Per-hook limits on processes and memory for sandboxed stdio hooks.
 *
 * Where the gateway can make cgroups (root on cgroup v1, or a delegated cgroup v2 subtree), every
 * spawn of a hook gets a cgroup of its own with `pids` and `memory` limits; a fork bomb stops at its
 * own `pids.max` and a memory bomb is OOM-killed inside its own cgroup, whatever the other hooks do.
 * The private /tmp is a tmpfs whose pages are charged to the cgroup of the process that writes
 * them, so the memory limit bounds /tmp too.
 *
 * The hook must be inside its cgroup before any of its code runs, and everything it forks must
 * follow. A cgroup is inherited across fork and exec, so a tiny root-side step (`sh`) writes its own
 * pid to the cgroup's `cgroup.procs` and then execs bwrap: bwrap, its init and the hook are born
 * inside. (The other way, moving bwrap's pid while it waits on `--block-fd`, would leave the
 * sandbox's init, already forked, outside.) If the write fails, the step exits and the hook never runs.
 *
 * Where no cgroup can be made, rlimits (`prlimit`): RLIMIT_DATA per process and RLIMIT_NPROC per
 * uid, which is shared by all hooks (uid 65534, or the gateway's uid in a user namespace), so it
 * is a ceiling for all hooks together, not a separation between tenants.
 */

export interface HookLimits {
  /** Processes and threads of one hook, together. */
  pids: number;
  /** Memory of one hook's processes and its private /tmp, together. */
  memoryBytes: number;
}

export type LimitsSupport =
  | { kind: 'cgroup2'; parent: string; sh: string }
  | { kind: 'cgroup1'; parents: { pids: string; memory: string }; sh: string }
  | { kind: 'rlimit'; prlimit: string; reason: string }
  | { kind: 'none'; reason: string };

export type LimitsErrorCode = 'LIMITS_CGROUP' | 'LIMITS_UNAVAILABLE';

export class LimitsError extends HookgateError<LimitsErrorCode> {
  constructor(code: LimitsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'LimitsError';
  }
}

/** Every cgroup this process makes lives under `hookgate-<pid>`, so a later gateway can sweep it. */
const OWN_DIR = `hookgate-${process.pid}`;
const STALE = /^hookgate-(\d+)$/;

let cached: LimitsSupport | undefined;

/** How hook limits can be enforced here; probed once (a throwaway cgroup is made and removed). */
export function detectLimits(): LimitsSupport {
  cached ??= probeLimits();
  return cached;
}

/** The probe itself, uncached: `roots` overrides where the hierarchies are found (tests). */
export function probeLimits(
  roots: { mountinfo?: string; cgroup?: string } = {},
  prlimitPath = process.env.PATH ?? '/usr/bin:/bin',
): LimitsSupport {
  if (process.platform !== 'linux')
    return { kind: 'none', reason: `cgroups and prlimit need Linux (this is ${process.platform})` };
  const why: string[] = [];
  const sh = findExecutable('sh', '/bin:/usr/bin', '/');
  let mounts: CgroupMount[] = [];
  let own = new Map<string, string>();
  try {
    mounts = cgroupMounts(readFileSync(roots.mountinfo ?? '/proc/self/mountinfo', 'utf8'));
    own = ownCgroups(readFileSync(roots.cgroup ?? '/proc/self/cgroup', 'utf8'));
  } catch (err) {
    why.push(`cannot read this process's cgroups: ${(err as Error).message}`);
  }
  if (!sh) why.push('no sh in /bin or /usr/bin to enter a cgroup with');
  else if (mounts.length > 0) {
    const v2 = tryCgroup2(mounts, own);
    if (typeof v2 !== 'string') return { kind: 'cgroup2', parent: v2.parent, sh };
    const v1 = tryCgroup1(mounts, own);
    if (typeof v1 !== 'string') return { kind: 'cgroup1', parents: v1, sh };
    why.push(`cgroup v2: ${v2}`, `cgroup v1: ${v1}`);
  } else if (why.length === 0) why.push('no cgroup filesystem is mounted');
  const prlimit = findExecutable('prlimit', `${prlimitPath}:/usr/bin:/bin`, '/');
  if (!prlimit) return { kind: 'none', reason: [...why, 'no prlimit (util-linux) on PATH'].join('; ') };
  const works = prlimitWorks(prlimit, sh ?? '/bin/sh');
  if (works !== true)
    return { kind: 'none', reason: [...why, `${prlimit} does not work: ${works}`].join('; ') };
  return { kind: 'rlimit', prlimit, reason: why.join('; ') };
}

/** prlimit can set the limits hooks get and run a program under them; else why not. */
function prlimitWorks(prlimit: string, sh: string): true | string {
  const r = spawnSync(prlimit, ['--nproc=64', `--data=${2 ** 28}`, '--', sh, '-c', 'exit 0'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.status === 0) return true;
  return (r.error?.message ?? r.stderr.trim()) || `exit ${r.status ?? r.signal}`;
}

interface CgroupMount {
  /** Where it is mounted. */
  path: string;
  /** The cgroup path the mount shows at its top (not "/" inside a container's bind mount). */
  root: string;
  version: 1 | 2;
  controllers: readonly string[];
}

function cgroupMounts(mountinfo: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const f = left.split(' ');
    const [fstype, , superOptions = ''] = right.split(' ');
    const path = unescapeMount(f[4] ?? '');
    const root = unescapeMount(f[3] ?? '/');
    if (fstype === 'cgroup2') out.push({ path, root, version: 2, controllers: [] });
    else if (fstype === 'cgroup') out.push({ path, root, version: 1, controllers: superOptions.split(',') });
  }
  return out;
}

/** `/proc/self/cgroup`: hierarchy controllers ("" for v2) → this process's path in it. */
function ownCgroups(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

/** The directory of `ownPath` in a mount that shows the hierarchy from `mount.root`. */
function dirIn(mount: CgroupMount, ownPath: string): string | undefined {
  if (mount.root === '/') return join(mount.path, ownPath);
  if (ownPath === mount.root || ownPath.startsWith(`${mount.root}/`))
    return join(mount.path, ownPath.slice(mount.root.length));
  return undefined;
}

/**
 * cgroup v2: the gateway's own cgroup (a systemd unit with Delegate=yes, a container with its own
 * cgroup namespace) must offer pids and memory and be writable. Controllers can only be handed
 * down from a cgroup without processes of its own, so when the gateway sits in it, the gateway
 * moves into a leaf `hookgate-gateway` first (what systemd's DelegateSubgroup= does).
 */
function tryCgroup2(mounts: CgroupMount[], own: Map<string, string>): { parent: string } | string {
  const mount = mounts.find((m) => m.version === 2);
  const ownPath = own.get('');
  if (!mount || ownPath === undefined) return 'not mounted';
  const dir = dirIn(mount, ownPath);
  if (!dir) return `this process's cgroup ${ownPath} is outside the mount at ${mount.path}`;
  try {
    const available = readFileSync(join(dir, 'cgroup.controllers'), 'utf8').split(/\s+/);
    const missing = ['pids', 'memory'].filter((c) => !available.includes(c));
    if (missing.length > 0) return `${dir} does not offer ${missing.join(' and ')}`;
    if (!enabledBelow(dir)) {
      try {
        writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids +memory');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EBUSY') throw err;
        const leaf = join(dir, 'hookgate-gateway');
        mkdirSync(leaf, { recursive: true });
        writeFileSync(join(leaf, 'cgroup.procs'), String(process.pid));
        writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids +memory');
      }
    }
    sweepStale(dir);
    const parent = join(dir, OWN_DIR);
    registerExitSweep([parent]);
    const probe = makeCgroups({ kind: 'cgroup2', parent, sh: '' }, 'probe', {
      pids: 8,
      memoryBytes: 2 ** 25,
    });
    removeNow(probe);
    return { parent };
  } catch (err) {
    return `${dir}: ${(err as Error).message}`;
  }
}

function enabledBelow(dir: string): boolean {
  const on = readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
  return on.includes('pids') && on.includes('memory');
}

/** cgroup v1: separate pids and memory hierarchies, each made writable to root (the gateway). */
function tryCgroup1(
  mounts: CgroupMount[],
  own: Map<string, string>,
): { pids: string; memory: string } | string {
  const parents: Record<string, string> = {};
  for (const controller of ['pids', 'memory'] as const) {
    const mount = mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
    const ownPath = [...own].find(([cs]) => cs.split(',').includes(controller))?.[1];
    if (!mount || ownPath === undefined) return `no ${controller} hierarchy`;
    const dir = dirIn(mount, ownPath);
    if (!dir) return `this process's ${controller} cgroup ${ownPath} is outside the mount at ${mount.path}`;
    try {
      // Co-mounted with the other controller: the same directory, swept and made once.
      if (Object.values(parents).includes(join(dir, OWN_DIR))) {
        parents[controller] = join(dir, OWN_DIR);
        continue;
      }
      sweepStale(dir);
      parents[controller] = join(dir, OWN_DIR);
    } catch (err) {
      return `${dir}: ${(err as Error).message}`;
    }
  }
  const found = { pids: parents.pids!, memory: parents.memory! };
  registerExitSweep([...new Set([found.pids, found.memory])]);
  try {
    const probe = makeCgroups({ kind: 'cgroup1', parents: found, sh: '' }, 'probe', {
      pids: 8,
      memoryBytes: 2 ** 25,
    });
    removeNow(probe);
  } catch (err) {
    return (err as Error).message;
  }
  return found;
}

type CgroupSupport = Extract<LimitsSupport, { kind: 'cgroup1' | 'cgroup2' }>;

/** One cgroup (v2) or one per hierarchy (v1), with the limits written; the dirs, innermost first. */
function makeCgroups(support: CgroupSupport, name: string, limits: HookLimits): string[] {
  const made: string[] = [];
  const write = (dir: string, file: string, value: string, optional = false) => {
    const p = join(dir, file);
    if (optional && !existsSync(p)) return;
    try {
      writeFileSync(p, value);
    } catch (err) {
      throw new LimitsError('LIMITS_CGROUP', `cannot set ${p} to ${value}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  };
  try {
    if (support.kind === 'cgroup2') {
      ensureParent(support.parent, true);
      const dir = join(support.parent, name);
      mkdirSync(dir);
      made.push(dir);
      write(dir, 'pids.max', String(limits.pids));
      write(dir, 'memory.max', String(limits.memoryBytes));
      // Swap would let a memory bomb go on past memory.max at the disk's pace.
      write(dir, 'memory.swap.max', '0', true);
      // Kill the whole hook on OOM, not one of its processes: a half-killed hook may hang.
      write(dir, 'memory.oom.group', '1', true);
    } else {
      ensureParent(support.parents.pids, false);
      ensureParent(support.parents.memory, false);
      const pids = join(support.parents.pids, name);
      mkdirSync(pids);
      made.push(pids);
      write(pids, 'pids.max', String(limits.pids));
      // Both controllers in one hierarchy (co-mounted): one cgroup carries both limits.
      const memory = join(support.parents.memory, name);
      if (memory !== pids) {
        mkdirSync(memory);
        made.push(memory);
      }
      write(memory, 'memory.limit_in_bytes', String(limits.memoryBytes));
      // Present when swap accounting is on; must not be below memory.limit_in_bytes.
      write(memory, 'memory.memsw.limit_in_bytes', String(limits.memoryBytes), true);
    }
  } catch (err) {
    removeNow(made);
    if (err instanceof LimitsError) throw err;
    throw new LimitsError('LIMITS_CGROUP', `cannot make a cgroup: ${(err as Error).message}`, { cause: err });
  }
  return made;
}

/** Cgroups still in use by this process's hooks: removed at exit if the hooks did not go first. */
const live = new Set<string>();
let spawnSeq = 0;

/**
 * `sh -p -c` with this script, then: keep|unset (PWD), the cgroup.procs files, `--`, the command.
 * sh sets PWD on its own; a hook whose environment had none must not get one from us.
 *
 * The step runs as root with the hook's environment (it must reach bwrap, and never as argv). Where
 * sh is bash, that environment could define functions (`BASH_FUNC_echo%%`) or turn on xtrace with a
 * PS4 that runs commands (`SHELLOPTS`): `-p` makes bash ignore both (and BASH_ENV); dash takes it
 * too. `"$$"` is quoted so that no IFS splits the pid.
 */
const ENTER =
  'm=$1; shift; for f; do shift; [ "$f" = -- ] && break; echo "$$" > "$f" || exit 125; done; ' +
  '[ "$m" = keep ] || unset PWD; exec "$@"';

/**
 * Puts one spawn of a hook under its limits. Returns the spec to spawn and `release`, which the
 * backend calls once the spawned process has exited (or failed to start): it kills what is left in
 * the cgroup and removes it, so a hook restarted a thousand times leaves no cgroups behind.
 *
 * With rlimits, `nproc` is the per-uid ceiling to set (shared by every process of that uid). With
 * a cgroup, `reached` hears at release what the limits refused or killed during that spawn.
 */
export function limitSpawn(
  spec: SpawnSpec,
  limits: HookLimits,
  support: LimitsSupport,
  label: string,
  nproc = limits.pids,
  reached?: (hit: LimitsHit) => void,
): SpawnSpec {
  if (support.kind === 'none') return spec;
  if (support.kind === 'rlimit') {
    return {
      ...spec,
      command: support.prlimit,
      args: [`--nproc=${nproc}`, `--data=${limits.memoryBytes}`, '--', spec.command, ...spec.args],
    };
  }
  const name = `${label.replace(/[^A-Za-z0-9_.-]/g, '_')}.${++spawnSeq}`;
  const dirs = makeCgroups(support, name, limits);
  for (const d of dirs) live.add(d);
  const keep = spec.env.PWD !== undefined ? 'keep' : 'unset';
  let released: Promise<void> | undefined;
  const inner = spec.release;
  return {
    ...spec,
    command: support.sh,
    args: [
      '-p',
      '-c',
      ENTER,
      'hookgate-limits',
      keep,
      ...dirs.map((d) => join(d, 'cgroup.procs')),
      '--',
      spec.command,
      ...spec.args,
    ],
    release: () => {
      if (!released) {
        const hit = limitsHit(dirs);
        if (reached && (hit.oomKills > 0 || hit.forksRefused > 0)) reached(hit);
        released = Promise.all([
          inner?.(),
          new Promise<void>((resolve) => removeWhenEmpty(dirs, resolve)),
        ]).then(() => {});
      }
      return released;
    },
  };
}

/** What a hook's limits did during one spawn: processes killed for memory, forks refused. */
export interface LimitsHit {
  oomKills: number;
  forksRefused: number;
}

/** Read from the cgroup's event counters (v2 memory.events, v1 memory.oom_control; pids.events). */
function limitsHit(dirs: string[]): LimitsHit {
  const count = (file: string, key: string) => {
    try {
      const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync(file, 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  };
  let oomKills = 0;
  let forksRefused = 0;
  for (const dir of dirs) {
    forksRefused += count(join(dir, 'pids.events'), 'max');
    oomKills +=
      count(join(dir, 'memory.events'), 'oom_kill') || count(join(dir, 'memory.oom_control'), 'oom_kill');
  }
  return { oomKills, forksRefused };
}

const REMOVE_TRIES = 60;
const REMOVE_FIRST_RETRY_MS = 5;
const REMOVE_MAX_RETRY_MS = 200;

/**
 * `hookgate-<pid>` exists only while this process has hook cgroups: made with the first, removed
 * with the last, so a gateway that ends without an exit handler (killed) leaves nothing once its
 * hooks are gone. On v2 it hands pids and memory down to the hooks' cgroups.
 */
function ensureParent(dir: string, v2: boolean): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true });
  if (v2 && !enabledBelow(dir)) writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids +memory');
}

/**
 * Kills what is left in the cgroups and removes them. The sandbox's processes die with bwrap, but
 * the kernel takes a moment to tear a PID namespace down, and rmdir fails while any is left: retried.
 */
function removeWhenEmpty(dirs: string[], done: () => void, tries = 0): void {
  const left = removeNow(dirs);
  if (left.length === 0 || tries >= REMOVE_TRIES) return done();
  const delay = Math.min(REMOVE_FIRST_RETRY_MS * 2 ** tries, REMOVE_MAX_RETRY_MS);
  setTimeout(() => removeWhenEmpty(left, done, tries + 1), delay).unref();
}

/** One pass: kill, rmdir. Returns the dirs still there (busy). */
function removeNow(dirs: string[]): string[] {
  const left: string[] = [];
  for (const dir of dirs) {
    killAll(dir);
    try {
      rmdirSync(dir);
      live.delete(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') live.delete(dir);
      else left.push(dir);
    }
  }
  if (live.size === 0) for (const p of parentDirs) tryRmdir(p);
  return left;
}

function tryRmdir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Gone already, or busy (a hook cgroup made meanwhile): it goes with the last one.
  }
}

function killAll(dir: string): void {
  try {
    if (existsSync(join(dir, 'cgroup.kill'))) {
      writeFileSync(join(dir, 'cgroup.kill'), '1');
      return;
    }
    for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  } catch {
    // No such cgroup (removed already).
  }
}

/** Removes `hookgate-<pid>` directories left by gateways that are gone (and their empty cgroups). */
function sweepStale(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const m = STALE.exec(entry);
    if (!m || alive(Number(m[1]))) continue;
    const stale = join(dir, entry);
    removeNow(
      readdirSync(stale, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(stale, e.name)),
    );
    try {
      rmdirSync(stale);
    } catch {
      // Something still runs in there; the next start tries again.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process's `hookgate-<pid>` directories, one per hierarchy. */
const parentDirs = new Set<string>();
const EXIT_TRIES = 50;
const EXIT_RETRY_MS = 20;

/** At exit, the hooks are killed with the gateway (--die-with-parent); their cgroups go too. */
function registerExitSweep(parents: string[]): void {
  const first = parentDirs.size === 0;
  for (const p of parents) parentDirs.add(p);
  if (!first) return;
  process.once('exit', () => {
    // The hooks' processes are being killed right now (bwrap died with us); rmdir fails until the
    // kernel has reaped them. Nothing else runs at exit, so wait for it here, briefly and boundedly.
    let left = removeNow([...live]);
    for (let i = 0; i < EXIT_TRIES && left.length > 0; i++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, EXIT_RETRY_MS);
      left = removeNow(left);
    }
  });
}

/** The cgroups this process currently holds for hooks (tests, and `describe` of what runs). */
export function liveCgroups(): readonly string[] {
  return [...live];
}

function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

/** Headroom over the hooks' own `pids` under a shared per-uid RLIMIT_NPROC (the gateway's threads). */
const NPROC_HEADROOM = 64;

/**
 * Where hooks get a uid each (root gateway, no cgroup): 0x7fff0000 up, below 2^31 and outside the
 * ranges systemd hands out (dynamic users, nspawn containers) and the usual subuid ranges.
 */
export const HOOK_UID_BASE = 0x7fff0000;
const HOOK_UID_COUNT = 0x10000;

/** A hook's own uid: stable across restarts and reloads (a hash of tenant and hook). */
export function hookUid(tenant: string, hook: string): number {
  let h = 0x811c9dc5;
  for (const c of Buffer.from(`${tenant}/${hook}`)) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return HOOK_UID_BASE + (h % HOOK_UID_COUNT);
}

/**
 * Each hook's uid in one config: its hash, or the next free one where two hooks' hashes meet (in
 * tenant/hook order, so the same config always gives the same uids).
 */
export function distinctUids(hooks: readonly { tenant: string; name: string }[]): Map<string, number> {
  const out = new Map<string, number>();
  const taken = new Set<number>();
  const keys = [...new Set(hooks.map((h) => `${h.tenant}/${h.name}`))].sort();
  for (const key of keys) {
    const slash = key.indexOf('/');
    let uid = hookUid(key.slice(0, slash), key.slice(slash + 1));
    while (taken.has(uid)) uid = HOOK_UID_BASE + ((uid - HOOK_UID_BASE + 1) % HOOK_UID_COUNT);
    taken.add(uid);
    out.set(key, uid);
  }
  return out;
}

export interface LimitedHook {
  tenant: string;
  name: string;
  limits: { pids: number; memory_mb: number };
}

export interface HookLimiter {
  /** Puts one spawn of `hook` (already wrapped in bwrap) under its limits. */
  limit(spec: SpawnSpec, hook: LimitedHook): SpawnSpec;
  /** The uid `hook` runs as, when hooks get one each (else undefined: the sandbox's 65534). */
  uid(hook: LimitedHook): number | undefined;
}

/**
 * Applies `server.sandbox` to hook limits once per config: probes, refuses to start (`required`)
 * when limits cannot be enforced at all, warns (`auto`) when they cannot or when they only hold per
 * uid, and returns the per-spawn step that puts one hook's spawn under its limits.
 *
 * RLIMIT_NPROC counts every process of a uid. With rlimits only, a root gateway (the `setpriv`
 * identity) therefore gives each hook a uid of its own, so one hook's fork bomb meets only its own
 * limit; in a user namespace every hook is the gateway's uid on the host and the limit is a ceiling
 * for all hooks together (sum of their `pids` and some headroom), not a separation.
 */
export function hookLimiter(
  hooks: readonly LimitedHook[],
  setting: 'auto' | 'required',
  identity: 'setpriv' | 'userns',
  log: Logger,
  support: LimitsSupport = detectLimits(),
): HookLimiter {
  if (support.kind === 'none') {
    if (setting === 'required')
      throw new LimitsError(
        'LIMITS_UNAVAILABLE',
        `server.sandbox is required but hook limits cannot be enforced: ${support.reason}`,
      );
    log.warn(
      { limits: 'none', reason: support.reason },
      'HOOK LIMITS UNAVAILABLE: a stdio hook can fork and allocate without bound (see docs/sandbox.md)',
    );
    return { limit: (spec) => spec, uid: () => undefined };
  }
  const bytes = (hook: LimitedHook) => ({
    pids: hook.limits.pids,
    memoryBytes: hook.limits.memory_mb * 2 ** 20,
  });
  if (support.kind !== 'rlimit') {
    log.info(
      {
        limits: support.kind,
        cgroups: support.kind === 'cgroup2' ? support.parent : Object.values(support.parents),
      },
      'stdio hook limits: a cgroup per hook',
    );
    // Why a hook died, or could not fork, is the first thing its operator asks.
    const reached = (hook: LimitedHook) => (hit: LimitsHit) =>
      log.warn(
        {
          tenant: hook.tenant,
          hook: hook.name,
          oom_kills: hit.oomKills,
          forks_refused: hit.forksRefused,
          limits: hook.limits,
        },
        'hook reached its sandbox limits',
      );
    return {
      limit: (spec, hook) =>
        limitSpawn(spec, bytes(hook), support, `${hook.tenant}.${hook.name}`, undefined, reached(hook)),
      uid: () => undefined,
    };
  }
  if (identity === 'setpriv') {
    const uids = distinctUids(hooks);
    log.warn(
      { limits: 'rlimit', uids: `${HOOK_UID_BASE}+`, reason: support.reason },
      'hook limits by rlimit (no cgroup here): a uid per hook for its process limit, memory per process',
    );
    return {
      limit: (spec, hook) => limitSpawn(spec, bytes(hook), support, '', hook.limits.pids),
      uid: (hook) => uids.get(`${hook.tenant}/${hook.name}`) ?? hookUid(hook.tenant, hook.name),
    };
  }
  const nproc = hooks.reduce((n, h) => n + h.limits.pids, 0) + NPROC_HEADROOM;
  log.warn(
    { limits: 'rlimit', nproc, reason: support.reason },
    'hook limits by rlimit only (no cgroup here): memory per process, processes for all hooks together',
  );
  return { limit: (spec, hook) => limitSpawn(spec, bytes(hook), support, '', nproc), uid: () => undefined };
}
