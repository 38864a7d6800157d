import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { SpawnSpec } from '../../backends/types.js';
import { HookgateError } from '../../lib/errors.js';
import {
  type CgroupHierarchy,
  cgroupsHit,
  findCgroups,
  type HookLimits,
  type LimitsHit,
  makeCgroups,
  releaseCgroups,
} from './cgroups.js';
import { findExecutable } from './sandbox.js';

export type { HookLimits, LimitsHit } from './cgroups.js';
export { liveCgroups } from './cgroups.js';

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
 * inside. (The other way, moving bwrap's pid while it waits on `--block-fd`, is not enough: bwrap
 * blocks in the sandbox's first process, already forked outside, which would have to be found through
 * `--info-fd` and moved too.) If the write fails, the step exits and the hook never runs.
 *
 * Where no cgroup can be made, rlimits (`prlimit`): RLIMIT_DATA per process and RLIMIT_NPROC per
 * uid; which uid each hook runs as, and so what that separates, is src/node/sandbox/hook-limits.ts's choice.
 * The cgroup filesystem itself is src/node/sandbox/cgroups.ts.
 */

export type LimitsSupport =
  | (CgroupHierarchy & { sh: string })
  | { kind: 'rlimit'; prlimit: string; reason: string }
  | { kind: 'none'; reason: string };

export class LimitsError extends HookgateError<'LIMITS_UNAVAILABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LIMITS_UNAVAILABLE', message, options);
    this.name = 'LimitsError';
  }
}

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
  if (!sh) why.push('no sh in /bin or /usr/bin to enter a cgroup with');
  else {
    const found = findCgroups(roots);
    if (typeof found !== 'string') return { ...found, sh };
    why.push(found);
  }
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
 * RLIMIT_DATA bounds address space a process reserves, not memory it uses: V8 reserves its code
 * range and heap cage up front (Node 24 does not start under 512 MiB), so the rlimit fallback gives
 * `memory_mb` this much room above it. A cgroup's memory limit counts what is used and needs none.
 */
export const RLIMIT_RESERVATION_HEADROOM = 2 ** 30;

/** The RLIMIT_DATA the rlimit fallback sets for a hook's `memory_mb`. */
export function rlimitDataBytes(limits: HookLimits): number {
  return limits.memoryBytes + RLIMIT_RESERVATION_HEADROOM;
}

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
      args: [`--nproc=${nproc}`, `--data=${rlimitDataBytes(limits)}`, '--', spec.command, ...spec.args],
    };
  }
  const name = `${label.replace(/[^A-Za-z0-9_.-]/g, '_')}.${++spawnSeq}`;
  const dirs = makeCgroups(support, name, limits);
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
        const hit = cgroupsHit(dirs);
        if (reached && (hit.oomKills > 0 || hit.forksRefused > 0)) reached(hit);
        released = Promise.all([inner?.(), releaseCgroups(dirs)]).then(() => {});
      }
      return released;
    },
  };
}
