import type { SpawnSpec } from '../../backends/types.js';
import type { Logger } from '../../server/logger.js';
import {
  detectLimits,
  type LimitsHit,
  LimitsError,
  type LimitsSupport,
  limitSpawn,
} from './sandbox-limits.js';

/**
 * Per-hook limits applied to one config: which mechanism (src/node/sandbox/sandbox-limits.ts) serves each
 * stdio hook, under which uid, with what `server.sandbox` says about a machine that has none.
 */

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
