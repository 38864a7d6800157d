import { describe, expect, it } from 'vitest';
import { distinctUids, HOOK_UID_BASE, hookLimiter, hookUid } from '../../../src/node/sandbox/hook-limits.js';
import { createNodeLogger } from '../../../src/node/logger.js';
import { RLIMIT_RESERVATION_HEADROOM } from '../../../src/node/sandbox/sandbox-limits.js';
import { LogCapture } from '../../helpers/gateway.js';

describe('hookLimiter: server.sandbox applied to hook limits', () => {
  const hooks = [
    { tenant: 'a', name: 'h', limits: { pids: 32, memory_mb: 64 } },
    { tenant: 'b', name: 'h', limits: { pids: 16, memory_mb: 64 } },
  ];
  const spec = { command: '/usr/bin/bwrap', args: ['--', 'hook'], env: {} };

  it('refuses to start under required when no limit can be enforced, naming why', () => {
    const logs = new LogCapture();
    const none = { kind: 'none' as const, reason: 'no cgroup filesystem is mounted; no prlimit' };
    expect(() => hookLimiter(hooks, 'required', 'setpriv', createNodeLogger('info', logs), none)).toThrow(
      'server.sandbox is required but hook limits cannot be enforced: no cgroup filesystem is mounted; no prlimit',
    );
    const limiter = hookLimiter(hooks, 'auto', 'setpriv', createNodeLogger('info', logs), none);
    expect(logs.lines.find((l) => l.limits === 'none')?.msg).toMatch(/^HOOK LIMITS UNAVAILABLE/);
    expect(limiter.limit(spec, hooks[0]!)).toEqual(spec);
    expect(limiter.uid(hooks[0]!)).toBeUndefined();
  });

  it('with rlimits gives a root gateway a uid per hook and its own pids; a user namespace one shared ceiling', () => {
    const logs = new LogCapture();
    const rlimit = { kind: 'rlimit' as const, prlimit: '/usr/bin/prlimit', reason: 'no cgroup here' };
    const root = hookLimiter(hooks, 'required', 'setpriv', createNodeLogger('info', logs), rlimit);
    expect(root.uid(hooks[0]!)).toBe(hookUid('a', 'h'));
    expect(root.limit(spec, hooks[1]!).args.slice(0, 2)).toEqual([
      '--nproc=16',
      `--data=${64 * 2 ** 20 + RLIMIT_RESERVATION_HEADROOM}`,
    ]);
    const userns = hookLimiter(hooks, 'required', 'userns', createNodeLogger('info', logs), rlimit);
    expect(userns.uid(hooks[0]!)).toBeUndefined();
    // 32 + 16 and headroom for the gateway's own threads, which count under the same uid.
    expect(userns.limit(spec, hooks[1]!).args[0]).toBe('--nproc=112');
    expect(logs.lines.filter((l) => l.limits === 'rlimit').length).toBe(2);
  });
});

describe('a uid per hook (rlimits on a root gateway)', () => {
  it('gives two hooks whose hashes meet different uids, the same for the same config', () => {
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const u = hookUid('t', `h${i}`);
      const other = seen.get(u);
      if (other) pair = [other, `h${i}`];
      seen.set(u, `h${i}`);
    }
    const hooks = pair.map((name) => ({ tenant: 't', name }));
    const uids = distinctUids(hooks);
    expect(new Set(uids.values()).size).toBe(2);
    expect(distinctUids([...hooks].reverse())).toEqual(uids);
  });

  it('gives each hook a stable uid of its own in the reserved range', () => {
    expect(hookUid('acme', 'weather')).toBe(hookUid('acme', 'weather'));
    expect(hookUid('acme', 'weather')).not.toBe(hookUid('other', 'weather'));
    for (const u of [hookUid('acme', 'weather'), hookUid('x', 'y')]) {
      expect(u).toBeGreaterThanOrEqual(HOOK_UID_BASE);
      expect(u).toBeLessThan(2 ** 31);
    }
  });
});
