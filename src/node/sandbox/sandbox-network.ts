import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { SpawnedProcess, SpawnSpec } from '../../backends/types.js';
import { HookgateError } from '../../lib/errors.js';
import type { SandboxIdentity } from './sandbox.js';
import { findExecutable } from './sandbox.js';

/**
 * The network of a sandboxed stdio hook (`sandbox.network`):
 * - `outbound` (default): a network namespace of its own (bwrap --unshare-net) with a loopback of its
 *   own and outbound NAT through slirp4netns, which never maps anything onto the host's loopback
 *   (--disable-host-loopback) and forwards no port in either direction. The gateway, its Redis and
 *   every other service bound to the host's 127.0.0.1/::1 are out of reach; /proc/net is the
 *   namespace's own.
 * - `none`: a network namespace with only its own loopback.
 * - `host`: the host's network namespace, loopback services included (the escape hatch).
 *
 * slirp4netns rather than pasta: it has an exit fd (it quits when the sandbox does, gateway crash
 * included, with no bookkeeping here) and a ready fd; and Debian 12's pasta drops root before it
 * opens the namespace it should attach to, so it cannot serve a root gateway.
 *
 * How one spawn gets its network, without the hook ever running unconfigured:
 * 1. bwrap makes the namespaces, reports its sandbox's pid on fd 3 (--info-fd) and waits on fd 4
 *    (--block-fd) before it runs anything; it holds fd 5 (--sync-fd) open for as long as it lives.
 * 2. The gateway opens that pid's network (and user) namespace and starts slirp4netns on them, with
 *    the gateway's end of fd 5 as its exit fd: when the sandbox ends, slirp4netns ends.
 * 3. slirp4netns reports the interface configured (its ready fd); the gateway writes fd 4, and only
 *    then bwrap runs the hook.
 *
 * Unprivileged (the `userns` identity), slirp4netns must enter the user namespace that owns the
 * network namespace. Left alone, bwrap maps the gateway's uid to 0 there (for /dev/pts) and later
 * moves the sandbox into a second, nested user namespace for uid 65534, where slirp4netns would have
 * no say over the network; which one /proc/<pid>/ns/user shows depends on timing. So bwrap is held
 * right after it made the namespaces (--userns-block-fd, fd 6) while the gateway writes the one
 * mapping bwrap would (sandbox uid and gid to the gateway's) and opens that namespace; bwrap then
 * makes no second one.
 */

export type SandboxNetwork = 'outbound' | 'none' | 'host';

export type NetworkErrorCode = 'NETWORK_ATTACH' | 'NETWORK_UNAVAILABLE';

export class SandboxNetworkError extends HookgateError<NetworkErrorCode> {}

/** Where slirp4netns answers DNS (it forwards to the host's resolver) in its default 10.0.2.0/24. */
export const SLIRP_DNS = '10.0.2.3';

/** An outbound network that is not ready after this long fails the spawn (which is retried). */
const ATTACH_TIMEOUT_MS = 10_000;

const INFO_FD = 3;
const BLOCK_FD = 4;
const SYNC_FD = 5;
/** Only in a user namespace (`userns`): bwrap waits on it until the gateway wrote the uid map. */
const USERNS_BLOCK_FD = 6;

export type OutboundSupport = { available: true; slirp4netns: string } | { available: false; reason: string };

let cached: OutboundSupport | undefined;

/** Whether slirp4netns is here and runs (the namespace itself is probed with bwrap by detectSandbox). */
export function detectOutbound(): OutboundSupport {
  cached ??= probeOutbound();
  return cached;
}

function probeOutbound(): OutboundSupport {
  const path = `${process.env.PATH ?? ''}:/usr/bin:/bin:/usr/sbin:/sbin`;
  const slirp4netns = findExecutable('slirp4netns', path, '/');
  if (!slirp4netns) return { available: false, reason: 'slirp4netns is not on PATH (install slirp4netns)' };
  const r = spawnSync(slirp4netns, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0)
    return {
      available: false,
      reason: `${slirp4netns} --version failed: ${(r.stderr || r.error?.message) ?? ''}`,
    };
  return { available: true, slirp4netns };
}

/**
 * The resolv.conf an outbound hook needs, when the host's cannot work from its namespace: a resolver
 * on the host's loopback (systemd-resolved's 127.0.0.53, Docker's 127.0.0.11) is not reachable from
 * there, so such a hook asks slirp4netns's forwarder instead (search and options lines kept).
 * Undefined: the host's resolv.conf names a resolver the hook reaches through NAT, and is kept.
 */
export function outboundResolvConf(hostResolvConf: string): string | undefined {
  const lines = hostResolvConf.split('\n');
  const servers = lines.map((l) => /^\s*nameserver\s+(\S+)/.exec(l)?.[1]).filter((s) => s !== undefined);
  const loopback = (s: string) => /^127\./.test(s) || s === '::1' || s === '0.0.0.0';
  if (servers.length > 0 && !servers.every(loopback)) return undefined;
  const kept = lines.filter((l) => /^\s*(search|domain|options)\s/.test(l));
  return [`nameserver ${SLIRP_DNS}`, ...kept, ''].join('\n');
}

/**
 * Turns the spec of a bwrap run made with its own network namespace (wrapInSandbox with
 * `network: false`) into one that gets outbound NAT before the hook runs. The returned spec's
 * `attach` must run once the process was spawned (the stdio backend does).
 */
export function withOutboundNetwork(
  spec: SpawnSpec,
  slirp4netns: string,
  identity: SandboxIdentity['kind'],
  hostResolvConf = readHostResolvConf(),
): SpawnSpec {
  const end = spec.args.indexOf('--');
  if (end < 0 || !spec.args.slice(0, end).includes('--unshare-net'))
    throw new SandboxNetworkError('NETWORK_ATTACH', 'outbound network needs a bwrap spec with --unshare-net');
  const resolv = outboundResolvConf(hostResolvConf);
  const flags = ['--info-fd', String(INFO_FD), '--block-fd', String(BLOCK_FD), '--sync-fd', String(SYNC_FD)];
  let fd = SYNC_FD;
  let map: AttachOptions['map'];
  if (identity === 'userns') {
    const opt = (name: string) => Number(spec.args[spec.args.slice(0, end).indexOf(name) + 1]);
    map = { uid: opt('--uid'), gid: opt('--gid') };
    if (!Number.isInteger(map.uid) || !Number.isInteger(map.gid))
      throw new SandboxNetworkError(
        'NETWORK_ATTACH',
        'a bwrap spec in a user namespace names --uid and --gid',
      );
    flags.push('--userns-block-fd', String(++fd));
  }
  let resolvFd: number | undefined;
  // After the /etc binds of wrapInSandbox (bwrap mounts in order), so this one is what the hook sees.
  if (resolv !== undefined) {
    resolvFd = ++fd;
    // bwrap would make it 0600, unreadable to the hook's uid when that is not the owner's.
    flags.push('--perms', '0644', '--ro-bind-data', String(resolvFd), '/etc/resolv.conf');
  }
  return {
    ...spec,
    args: [...spec.args.slice(0, end), ...flags, ...spec.args.slice(end)],
    extraPipes: fd - 2,
    attach: (child) => attachOutbound(child, { slirp4netns, identity, resolv, resolvFd, map }),
  };
}

function readHostResolvConf(): string {
  try {
    return readFileSync('/etc/resolv.conf', 'utf8');
  } catch {
    return '';
  }
}

interface AttachOptions {
  slirp4netns: string;
  identity: SandboxIdentity['kind'];
  resolv: string | undefined;
  resolvFd?: number;
  /** `userns`: the sandbox's uid and gid, mapped to the gateway's by the gateway (fd 6 holds bwrap). */
  map?: { uid: number; gid: number };
}

/** Steps 2 and 3 above, for one spawned bwrap. Rejects (the spawn fails) when it cannot be done. */
export async function attachOutbound(child: SpawnedProcess, opts: AttachOptions): Promise<void> {
  const info = child.stdio[INFO_FD] as Readable;
  const block = child.stdio[BLOCK_FD] as Writable;
  const sync = child.stdio[SYNC_FD] as Readable;
  // A sandbox that died early makes these EPIPE or ECONNRESET; that is reported by its exit, and an
  // unhandled 'error' would take the gateway down with it.
  for (const pipe of child.stdio.slice(INFO_FD)) (pipe as Readable | null)?.on('error', () => {});
  if (opts.resolvFd !== undefined) (child.stdio[opts.resolvFd] as Writable).end(opts.resolv);
  let helper: ChildProcess | undefined;
  const timer = deadline(ATTACH_TIMEOUT_MS);
  try {
    const pid = await Promise.race([sandboxPid(info), timer.expired]);
    if (opts.map) mapUser(pid, opts.map);
    const fds = openNamespaces(pid, child.pid, opts.map !== undefined);
    if (opts.map) (child.stdio[USERNS_BLOCK_FD] as Writable).end('1');
    try {
      helper = startHelper(opts, fds, sync);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    // slirp4netns holds its own copy of the sync socket now; ours would keep it from ever ending.
    sync.destroy();
    await Promise.race([ready(helper), timer.expired]);
    block.end('1');
  } catch (err) {
    helper?.kill('SIGKILL');
    sync.destroy();
    throw err instanceof SandboxNetworkError
      ? err
      : new SandboxNetworkError('NETWORK_ATTACH', `sandbox network: ${(err as Error).message}`, {
          cause: err,
        });
  } finally {
    timer.clear();
    info.destroy();
  }
}

/** bwrap's --info-fd JSON: `{"child-pid": N}`, written once its namespaces exist. */
function sandboxPid(info: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = (err?: Error, pid?: number) => {
      info.removeAllListeners('data');
      info.removeAllListeners('end');
      info.on('error', () => {});
      if (err) reject(err);
      else resolve(pid as number);
    };
    info.on('data', (b: Buffer) => {
      text += b;
      try {
        const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
        if (typeof pid === 'number' && Number.isInteger(pid) && pid > 0) done(undefined, pid);
        else done(new SandboxNetworkError('NETWORK_ATTACH', `bwrap reported no sandbox pid: ${text.trim()}`));
      } catch {
        // Not the whole JSON yet.
      }
    });
    info.once('end', () =>
      done(new SandboxNetworkError('NETWORK_ATTACH', 'bwrap exited before its sandbox started')),
    );
    info.once('error', (err) => done(err));
  });
}

/**
 * What bwrap writes itself when not held: one uid and one gid, the gateway's, seen as the sandbox's
 * inside; setgroups denied first, as the kernel requires of an unprivileged gid map.
 */
function mapUser(pid: number, map: { uid: number; gid: number }): void {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid === undefined || gid === undefined)
    throw new SandboxNetworkError('NETWORK_ATTACH', 'no uid to map on this platform');
  writeFileSync(`/proc/${pid}/setgroups`, 'deny');
  writeFileSync(`/proc/${pid}/uid_map`, `${map.uid} ${uid} 1\n`);
  writeFileSync(`/proc/${pid}/gid_map`, `${map.gid} ${gid} 1\n`);
}

/**
 * Opens the sandbox's network namespace (and, in a user namespace, that user namespace) for the
 * helper. Checked after opening: the pid is still bwrap's child (not a recycled pid), and the
 * namespace is not the gateway's own, which the helper must never configure.
 */
function openNamespaces(pid: number, bwrapPid: number | undefined, userns: boolean): number[] {
  const fds: number[] = [];
  try {
    fds.push(openSync(`/proc/${pid}/ns/net`, 'r'));
    if (userns) fds.push(openSync(`/proc/${pid}/ns/user`, 'r'));
    const ppid = /^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (bwrapPid === undefined || Number(ppid) !== bwrapPid)
      throw new SandboxNetworkError('NETWORK_ATTACH', `pid ${pid} is not the sandbox bwrap started`);
    if (fstatSync(fds[0]).ino === statSync('/proc/self/ns/net').ino)
      throw new SandboxNetworkError('NETWORK_ATTACH', 'the sandbox shares the gateway network namespace');
    return fds;
  } catch (err) {
    for (const fd of fds) closeSync(fd);
    throw err;
  }
}

function startHelper(opts: AttachOptions, fds: number[], sync: Readable): ChildProcess {
  // fd 3: exit fd (the sandbox's sync socket), 4: ready fd, 5: the network namespace, 6: its user namespace.
  const args = ['--configure', '--disable-host-loopback', '--exit-fd=3', '--ready-fd=4', '--netns-type=path'];
  // A seccomp filter (no exec, mount, ptrace, setns once running). As root, also its own mount
  // namespace and no capability left but NET_BIND_SERVICE; unprivileged it has none to drop, and its
  // sandbox mode needs to be started inside the user namespace, which this one is not.
  args.push('--enable-seccomp');
  if (opts.identity === 'setpriv') args.push('--enable-sandbox');
  if (opts.resolv === undefined) args.push('--disable-dns');
  if (fds[1] !== undefined) args.push('--userns-path=/proc/self/fd/6');
  args.push('/proc/self/fd/5', 'tap0');
  const helper = spawn(opts.slirp4netns, args, {
    stdio: ['ignore', 'ignore', 'pipe', sync as unknown as Writable, 'pipe', fds[0], fds[1] ?? 'ignore'],
    env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
  });
  helper.on('error', () => {});
  return helper;
}

/** Resolves when slirp4netns says the interface is configured; rejects with its stderr if it quits. */
function ready(helper: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    helper.stderr?.on('data', (b: Buffer) => {
      if (stderr.length < 4096) stderr += b;
    });
    const readyFd = helper.stdio[4] as Readable;
    readyFd.on('error', () => {});
    readyFd.once('data', () => {
      helper.removeListener('exit', onexit);
      readyFd.destroy();
      resolve();
    });
    const onexit = (code: number | null, signal: string | null) => {
      const why = stderr.trim().split('\n').slice(-2).join('; ');
      reject(
        new SandboxNetworkError(
          'NETWORK_ATTACH',
          `slirp4netns exited (${signal ?? code}) before the network was ready${why ? `: ${why}` : ''}`,
        ),
      );
    };
    helper.once('exit', onexit);
    helper.once('error', (err) => reject(err));
  });
}

function deadline(ms: number): { expired: Promise<never>; clear: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SandboxNetworkError('NETWORK_ATTACH', `sandbox network not ready after ${ms} ms`)),
      ms,
    );
  });
  expired.catch(() => {});
  return { expired, clear: () => clearTimeout(timer) };
}
