import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import type { HookRuntime } from '../../src/config/runtime.js';
import { LocalLimiter } from '../../src/limits/local.js';
import { RedisLimiter } from '../../src/limits/redis.js';
import { type Admission, Refusal } from '../../src/limits/types.js';
import { createNodeLogger } from '../../src/node/logger.js';
import { RedisClient } from '../../src/node/redis/redis-client.js';
import { Metrics } from '../../src/server/metrics.js';
import { LogCapture } from '../helpers/gateway.js';
import { freePort, redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../helpers/redis.js';

const KEY = { kid: 'k1', alg: 'HS256', secret: 'limits-test-secret-0123456789abcdefghij' };
const backend = { type: 'module', module: 'x.js' };
const SLOW = 0.001; // one call per 1000 s: within a test only the burst gets through

let tenantSeq = 0;
/** Hooks a and b of a fresh tenant (fresh keys in the shared Redis). */
function hooks(tenantLimits?: object, aLimits?: object, bLimits?: object) {
  const name = `t${++tenantSeq}-${Date.now()}`;
  const config = compileConfig(
    {
      tenants: {
        [name]: {
          auth: { keys: [KEY] },
          limits: tenantLimits,
          hooks: { a: { backend, limits: aLimits }, b: { backend, limits: bLimits } },
        },
      },
    },
    (r) => r,
  );
  const t = config.tenants.get(name)!;
  return { a: t.hooks.get('a')!, b: t.hooks.get('b')! };
}

// The command timeout is far above what a live Redis takes (ms): where a test asserts no fallback,
// a loaded machine must not turn a slow answer into one.
function limiterFor(url: string, timeoutMs = 10_000, retryAfterFailureMs?: number) {
  const metrics = new Metrics();
  const logs = new LogCapture();
  const client = new RedisClient(url, { timeoutMs });
  const limiter = new RedisLimiter(client, {
    fallback: new LocalLimiter(),
    metrics,
    log: createNodeLogger('debug', logs),
    retryAfterFailureMs,
  });
  return { limiter, metrics, logs, client };
}

async function admitted(lim: RedisLimiter, hook: HookRuntime, n: number, maxCallMs = 1000) {
  const out: Admission[] = [];
  for (let i = 0; i < n; i++) out.push(await lim.acquire(hook, maxCallMs));
  return out;
}
const okCount = (xs: Admission[]) => xs.filter((x) => !(x instanceof Refusal)).length;

describe.skipIf(SKIP_REDIS)(`RedisLimiter against redis-server${redisNote}`, () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('admits the burst, then refuses with the wait until the next call', async () => {
    const { a } = hooks(undefined, { calls_per_second: 2, burst: 3 });
    const { limiter } = limiterFor(redis.url);
    const all = await admitted(limiter, a, 5);
    expect(okCount(all)).toBe(3);
    const r = all[4] as Refusal;
    expect(r.limit).toBe('hook_rate');
    expect(r.retryAfterMs).toBeGreaterThan(400);
    expect(r.retryAfterMs).toBeLessThanOrEqual(500);
    await new Promise((res) => setTimeout(res, r.retryAfterMs + 20));
    expect(okCount(await admitted(limiter, a, 2))).toBe(1);
    await limiter.close();
  });

  it('shares a tenant limit between two limiters (two replicas) and across hooks', async () => {
    const { a, b } = hooks({ calls_per_second: SLOW, burst: 5 }, { calls_per_second: SLOW, burst: 2 });
    const one = limiterFor(redis.url).limiter;
    const two = limiterFor(redis.url).limiter;
    const results = await Promise.all([admitted(one, a, 3), admitted(two, b, 4), admitted(one, b, 4)]);
    expect(okCount(results.flat())).toBe(5);
    expect(okCount(results[0])).toBeLessThanOrEqual(2);
    const limits = new Set(
      results
        .flat()
        .filter((x) => x instanceof Refusal)
        .map((x) => (x as Refusal).limit),
    );
    expect(limits.has('tenant_rate')).toBe(true);
    await Promise.all([one.close(), two.close()]);
  });

  it('counts calls in flight across limiters until released', async () => {
    const { a } = hooks({ max_in_flight: 3 }, { max_in_flight: 2 });
    const one = limiterFor(redis.url).limiter;
    const two = limiterFor(redis.url).limiter;
    const l1 = await one.acquire(a, 5000);
    const l2 = await two.acquire(a, 5000);
    const refused = (await one.acquire(a, 5000)) as Refusal;
    expect(refused).toBeInstanceOf(Refusal);
    expect(refused.limit).toBe('hook_in_flight');
    expect(refused.retryAfterMs).toBe(1000);
    (l1 as { release(): void }).release();
    await expect.poll(async () => !((await two.acquire(a, 5000)) instanceof Refusal)).toBe(true);
    void l2;
    await Promise.all([one.close(), two.close()]);
  });

  it('forgets an in-flight entry after its deadline (a replica that died mid-call)', async () => {
    const { a } = hooks(undefined, { max_in_flight: 1 });
    const dead = limiterFor(redis.url).limiter;
    expect(await dead.acquire(a, 100)).not.toBeInstanceOf(Refusal);
    await dead.close(); // never releases
    const alive = limiterFor(redis.url).limiter;
    expect(await alive.acquire(a, 100)).toBeInstanceOf(Refusal);
    // The entry lives for the call's deadline plus 1 s of slack, then goes (a refused try adds none).
    await expect
      .poll(async () => (await alive.acquire(a, 100)) instanceof Refusal, { interval: 100 })
      .toBe(false);
    await alive.close();
  });

  it('loads the script again after Redis lost it', async () => {
    const { a } = hooks(undefined, { calls_per_second: SLOW, burst: 2 });
    const { limiter, client } = limiterFor(redis.url);
    expect(await limiter.acquire(a, 1000)).not.toBeInstanceOf(Refusal);
    await client.command(['SCRIPT', 'FLUSH']);
    expect(await limiter.acquire(a, 1000)).not.toBeInstanceOf(Refusal);
    expect(await limiter.acquire(a, 1000)).toBeInstanceOf(Refusal);
    await limiter.close();
  });

  it('limits events by rate only', async () => {
    const { a } = hooks(undefined, { calls_per_second: SLOW, burst: 2, max_in_flight: 1 });
    const { limiter } = limiterFor(redis.url);
    expect(await limiter.admitEvent(a)).toBeNull();
    expect(await limiter.admitEvent(a)).toBeNull();
    expect((await limiter.admitEvent(a))?.limit).toBe('hook_rate');
    await limiter.close();
  });
});

describe.skipIf(SKIP_REDIS)(`RedisLimiter when its Redis dies and comes back${redisNote}`, () => {
  it('decides in-process while Redis is dead, and through Redis again once it is back', async () => {
    const first = await startRedis();
    const { a } = hooks(undefined, { calls_per_second: SLOW, burst: 100 });
    const { limiter, metrics } = limiterFor(first.url, 10_000, 0);
    const fallbacks = () => Number(/hookgate_limiter_fallbacks_total (\d+)/.exec(metrics.render())?.[1] ?? 0);
    let second: TestRedis | undefined;
    try {
      expect(await limiter.acquire(a, 1000)).not.toBeInstanceOf(Refusal);
      expect(fallbacks()).toBe(0);
      await first.stop();
      expect(await limiter.acquire(a, 1000)).not.toBeInstanceOf(Refusal);
      expect(fallbacks()).toBe(1);
      second = await startRedis([], { port: first.port });
      const direct = new RedisClient(second.url, { timeoutMs: 1000 });
      // The new Redis starts empty: the hook's rate key appears there once a decision is made by it.
      await expect
        .poll(
          async () => {
            await limiter.acquire(a, 1000);
            return direct.command(['EXISTS', `hookgate:{${a.tenant}}:rate:a`]);
          },
          { timeout: 10_000 },
        )
        .toBe(1);
      await direct.close();
    } finally {
      await limiter.close();
      await second?.stop();
    }
  });
});

describe('RedisLimiter when Redis does not answer', () => {
  it('decides in-process at once, counts it, and logs once per interval', async () => {
    const { a } = hooks(undefined, { calls_per_second: SLOW, burst: 2 });
    const { limiter, metrics, logs } = limiterFor(`redis://:pw-in-url@127.0.0.1:${await freePort()}`, 30_000);
    const started = Date.now();
    const all = await admitted(limiter, a, 4);
    // At once: refused connections, far before even one 30 s command timeout.
    expect(Date.now() - started).toBeLessThan(15_000);
    // The in-process fallback still enforces the limit.
    expect(okCount(all)).toBe(2);
    expect(metrics.render()).toContain('hookgate_limiter_fallbacks_total 4');
    const warnings = logs.lines.filter((l) => l.msg?.startsWith('redis limiter unavailable'));
    expect(warnings).toHaveLength(1);
    expect(logs.text).not.toContain('pw-in-url');
    await limiter.close();
  });
});
