import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HookgateError } from '../../lib/errors.js';

/**
 * The cgroup filesystem side of per-hook limits (src/node/sandbox/sandbox-limits.ts): finding a hierarchy
 * this process may make cgroups in (cgroup v2 delegated to it, or v1 `pids` and `memory` as root),
 * making one cgroup per hook spawn with its limits, reading what the limits did, and removing it
 * again: when the hook exits, at this process's exit, or (left by a gateway that died) at the next
 * gateway's start.
 */

export interface HookLimits {
  /** Processes and threads of one hook, together. */
  pids: number;
  /** Memory of one hook's processes and its private /tmp, together. */
  memoryBytes: number;
}

/** Where this process makes hook cgroups: one parent (v2), or one per hierarchy (v1). */
export type CgroupHierarchy =
  | { kind: 'cgroup2'; parent: string }
  | { kind: 'cgroup1'; parents: { pids: string; memory: string } };

export class CgroupError extends HookgateError<'LIMITS_CGROUP'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LIMITS_CGROUP', message, options);
    this.name = 'CgroupError';
  }
}

/** Every cgroup this process makes lives under `hookgate-<pid>`, so a later gateway can sweep it. */
const OWN_DIR = `hookgate-${process.pid}`;
const STALE = /^hookgate-(\d+)$/;

/**
 * The hierarchy this process can make hook cgroups in (a throwaway one is made and removed to be
 * sure), or why there is none. `roots` overrides where the hierarchies are read from (tests).
 */
export function findCgroups(roots: { mountinfo?: string; cgroup?: string } = {}): CgroupHierarchy | string {
  let mounts: CgroupMount[];
  let own: Map<string, string>;
  try {
    mounts = cgroupMounts(readFileSync(roots.mountinfo ?? '/proc/self/mountinfo', 'utf8'));
    own = ownCgroups(readFileSync(roots.cgroup ?? '/proc/self/cgroup', 'utf8'));
  } catch (err) {
    return `cannot read this process's cgroups: ${(err as Error).message}`;
  }
  if (mounts.length === 0) return 'no cgroup filesystem is mounted';
  const v2 = tryCgroup2(mounts, own);
  if (typeof v2 !== 'string') return { kind: 'cgroup2', parent: v2.parent };
  const v1 = tryCgroup1(mounts, own);
  if (typeof v1 !== 'string') return { kind: 'cgroup1', parents: v1 };
  return `cgroup v2: ${v2}; cgroup v1: ${v1}`;
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
    const probe = makeCgroups({ kind: 'cgroup2', parent }, 'probe', {
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
    const probe = makeCgroups({ kind: 'cgroup1', parents: found }, 'probe', {
      pids: 8,
      memoryBytes: 2 ** 25,
    });
    removeNow(probe);
  } catch (err) {
    return (err as Error).message;
  }
  return found;
}

/** One cgroup (v2) or one per hierarchy (v1), with the limits written; the dirs, innermost first. */
export function makeCgroups(support: CgroupHierarchy, name: string, limits: HookLimits): string[] {
  const made: string[] = [];
  const write = (dir: string, file: string, value: string, optional = false) => {
    const p = join(dir, file);
    if (optional && !existsSync(p)) return;
    try {
      writeFileSync(p, value);
    } catch (err) {
      throw new CgroupError(`cannot set ${p} to ${value}: ${(err as Error).message}`, { cause: err });
    }
  };
  try {
    if (support.kind === 'cgroup2') {
      ensureParent(support.parent, true);
      const dir = join(support.parent, name);
      mkdirSync(dir);
      made.push(dir);
      live.add(dir);
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
      live.add(pids);
      write(pids, 'pids.max', String(limits.pids));
      // Both controllers in one hierarchy (co-mounted): one cgroup carries both limits.
      const memory = join(support.parents.memory, name);
      if (memory !== pids) {
        mkdirSync(memory);
        made.push(memory);
        live.add(memory);
      }
      write(memory, 'memory.limit_in_bytes', String(limits.memoryBytes));
      // Present when swap accounting is on; must not be below memory.limit_in_bytes.
      write(memory, 'memory.memsw.limit_in_bytes', String(limits.memoryBytes), true);
    }
  } catch (err) {
    removeNow(made);
    if (err instanceof CgroupError) throw err;
    throw new CgroupError(`cannot make a cgroup: ${(err as Error).message}`, { cause: err });
  }
  return made;
}

/** Cgroups in use by this process's hooks: removed at exit if the hooks did not go first. */
const live = new Set<string>();

/** Kills what is left in `dirs` and removes them; settles when they are gone (or it gave up). */
export function releaseCgroups(dirs: readonly string[]): Promise<void> {
  return new Promise<void>((resolve) => removeWhenEmpty([...dirs], resolve));
}

/** What a hook's limits did during one spawn: processes killed for memory, forks refused. */
export interface LimitsHit {
  oomKills: number;
  forksRefused: number;
}

/** Read from the cgroup's event counters (v2 memory.events, v1 memory.oom_control; pids.events). */
export function cgroupsHit(dirs: readonly string[]): LimitsHit {
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
  if (left.length === 0 || tries >= REMOVE_TRIES) {
    done();
    return;
  }
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
