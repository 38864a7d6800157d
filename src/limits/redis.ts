import type { HookRuntime, LimitSpec } from '../config/runtime.js';
import { LogRateLimit } from '../lib/log-rate-limit.js';
import type { Logger } from '../server/logger.js';
import type { Metrics } from '../server/metrics.js';
import type { LocalLimiter } from './local.js';
import { type Admission, type CallLimiter, type Lease, type LimitName, Refusal } from './types.js';
import { randomUuid } from '../lib/uuid.js';

/** The slice of a Redis client the limiter needs; every command settles in bounded time. */
export interface RedisCommands {
  command(args: readonly (string | number)[]): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * One atomic decision for a call (or an event) under a hook's limits and its tenant's, on the
 * Redis server's clock (replicas' clocks may differ; there is one Redis). Rate: GCRA, a theoretical
 * arrival time per scope. In flight: a sorted set per scope, members are lease ids scored by the
 * time the call is surely over, so a replica that dies mid-call leaves entries that expire.
 * Nothing is charged unless everything admits.
 *
 * KEYS: hook rate, tenant rate, hook in-flight set, tenant in-flight set.
 * ARGV: hook interval ms (0: no rate), hook burst, tenant interval, tenant burst, hook max in
 *       flight (0: none), tenant max, lease id ('' for an event: rate only), lease ttl ms,
 *       ms to tell a caller refused by an in-flight limit.
 * Returns {0} when admitted, or {n, wait_ms} with n = 1 hook rate, 2 tenant rate, 3 hook in
 * flight, 4 tenant in flight.
 */
export const LIMIT_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local function arrival(key, interval)
  local v = redis.call('GET', key)
  local tat = now
  if v then tat = math.max(tonumber(v), now) end
  return tat + interval
end
local hi, hb, ti, tb = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local hn, tn
if hi > 0 then
  hn = arrival(KEYS[1], hi)
  local wait = hn - hb * hi - now
  if wait > 0 then return {1, tostring(wait)} end
end
if ti > 0 then
  tn = arrival(KEYS[2], ti)
  local wait = tn - tb * ti - now
  if wait > 0 then return {2, tostring(wait)} end
end
local lease, ttl = ARGV[7], tonumber(ARGV[8])
local hm, tm = tonumber(ARGV[5]), tonumber(ARGV[6])
if lease ~= '' then
  if hm > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
    if redis.call('ZCARD', KEYS[3]) >= hm then return {3, ARGV[9]} end
  end
  if tm > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
    if redis.call('ZCARD', KEYS[4]) >= tm then return {4, ARGV[9]} end
  end
  local function hold(key)
    redis.call('ZADD', key, now + ttl, lease)
    if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
  end
  if hm > 0 then hold(KEYS[3]) end
  if tm > 0 then hold(KEYS[4]) end
end
if hn then redis.call('SET', KEYS[1], tostring(hn), 'PX', math.ceil(hn - now) + 1000) end
if tn then redis.call('SET', KEYS[2], tostring(tn), 'PX', math.ceil(tn - now) + 1000) end
return {0}
`;

const REFUSED: Record<number, LimitName> = {
  1: 'hook_rate',
  2: 'tenant_rate',
  3: 'hook_in_flight',
  4: 'tenant_in_flight',
};

/** An in-flight entry outlives its call's deadline by this much before Redis forgets it. */
const LEASE_SLACK_MS = 1_000;
const IN_FLIGHT_RETRY = '1000';

/** The keys and the fixed arguments of one hook, built once. */
class HookScript {
  readonly keys: string[];
  readonly limits: string[];
  readonly hookFlight: boolean;
  readonly tenantFlight: boolean;

  constructor(hook: HookRuntime, prefix: string) {
    // {tenant} is a hash tag: a tenant's keys share a cluster slot, as one script needs.
    const base = `${prefix}:{${hook.tenant}}`;
    this.keys = [
      `${base}:rate:${hook.name}`,
      `${base}:rate`,
      `${base}:flight:${hook.name}`,
      `${base}:flight`,
    ];
    const h = hook.limits?.hook;
    const t = hook.limits?.tenant;
    this.limits = [...rate(h), ...rate(t), String(h?.maxInFlight ?? 0), String(t?.maxInFlight ?? 0)];
    this.hookFlight = !!h?.maxInFlight;
    this.tenantFlight = !!t?.maxInFlight;
  }
}

function rate(spec: LimitSpec | undefined): string[] {
  return spec?.callsPerSecond ? [String(1000 / spec.callsPerSecond), String(spec.burst)] : ['0', '1'];
}

class RedisLease implements Lease {
  constructor(
    private readonly limiter: RedisLimiter,
    private readonly script: HookScript,
    private readonly id: string,
  ) {}

  release(): void {
    this.limiter.release(this.script, this.id);
  }
}

export interface RedisLimiterOptions {
  /** Decides while Redis does not answer (and for calls admitted then). */
  fallback: LocalLimiter;
  metrics: Metrics;
  log: Logger;
  /** After a failure, how long calls are decided in-process before Redis is tried again. */
  retryAfterFailureMs?: number;
  keyPrefix?: string;
  now?: () => number;
}

/**
 * Limits shared by every gateway replica that uses the same Redis. When Redis does not answer
 * (down, unreachable, slower than the client's timeout), calls are decided by the in-process
 * fallback instead: each replica then enforces the limits on its own (so together up to N times
 * them) rather than refusing or stalling every call. Each such decision is counted in
 * hookgate_limiter_fallbacks_total, the first of every 10 s is logged, and Redis is tried again
 * after `retryAfterFailureMs`.
 */
export class RedisLimiter implements CallLimiter {
  private readonly scripts = new Map<HookRuntime, HookScript>();
  private sha?: string;
  private downUntil = 0;
  private readonly warnings: LogRateLimit;
  private readonly fellBack: () => void;
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisCommands,
    private readonly opts: RedisLimiterOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.warnings = LogRateLimit.every(10_000, this.now);
    this.fellBack = opts.metrics.counter('hookgate_limiter_fallbacks_total', {});
  }

  async acquire(hook: HookRuntime, maxCallMs: number): Promise<Admission> {
    if (this.now() < this.downUntil) return this.fallback(hook, undefined, maxCallMs);
    const script = this.scriptOf(hook);
    const id = randomUuid();
    try {
      const reply = await this.run(script, id, maxCallMs + LEASE_SLACK_MS);
      return reply ?? new RedisLease(this, script, id);
    } catch (err) {
      return this.fallback(hook, err, maxCallMs);
    }
  }

  async admitEvent(hook: HookRuntime): Promise<Refusal | null> {
    if (this.now() < this.downUntil) return this.fallbackEvent(hook, undefined);
    try {
      return (await this.run(this.scriptOf(hook), '', 0)) ?? null;
    } catch (err) {
      return this.fallbackEvent(hook, err);
    }
  }

  /** Ends a call admitted by Redis; if Redis does not hear of it, the entry expires on its own. */
  release(script: HookScript, id: string): void {
    if (script.hookFlight) this.redis.command(['ZREM', script.keys[2], id]).catch(() => {});
    if (script.tenantFlight) this.redis.command(['ZREM', script.keys[3], id]).catch(() => {});
  }

  close(): Promise<void> {
    return this.redis.close();
  }

  /** Runs the script (loading it when Redis does not have it); a Refusal, or undefined when admitted. */
  private async run(script: HookScript, lease: string, ttlMs: number): Promise<Refusal | undefined> {
    const args = [...script.keys, ...script.limits, lease, ttlMs, IN_FLIGHT_RETRY];
    let reply: unknown;
    try {
      this.sha ??= String(await this.redis.command(['SCRIPT', 'LOAD', LIMIT_SCRIPT]));
      reply = await this.redis.command(['EVALSHA', this.sha, 4, ...args]);
    } catch (err) {
      // Redis restarted (or failed over) and lost its script cache: load it again once.
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      this.sha = String(await this.redis.command(['SCRIPT', 'LOAD', LIMIT_SCRIPT]));
      reply = await this.redis.command(['EVALSHA', this.sha, 4, ...args]);
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'number') {
      throw new Error(`unexpected reply from the limit script: ${JSON.stringify(reply)}`);
    }
    if (reply[0] === 0) return undefined;
    const limit = REFUSED[reply[0]];
    if (!limit) throw new Error(`unexpected refusal code ${reply[0]}`);
    return new Refusal(limit, Number(reply[1]));
  }

  private scriptOf(hook: HookRuntime): HookScript {
    let s = this.scripts.get(hook);
    if (!s) {
      s = new HookScript(hook, this.opts.keyPrefix ?? 'hookgate');
      this.scripts.set(hook, s);
    }
    return s;
  }

  private fallback(hook: HookRuntime, err: unknown, maxCallMs: number): Admission {
    this.noteFailure(err);
    return this.opts.fallback.acquire(hook, maxCallMs);
  }

  private fallbackEvent(hook: HookRuntime, err: unknown): Refusal | null {
    this.noteFailure(err);
    return this.opts.fallback.admitEvent(hook);
  }

  private noteFailure(err: unknown): void {
    this.fellBack();
    if (err === undefined) return;
    this.downUntil = this.now() + (this.opts.retryAfterFailureMs ?? 1_000);
    const skipped = this.warnings.admit();
    if (skipped < 0) return;
    this.opts.log.warn(
      { err: err instanceof Error ? err.message : String(err), unlogged_failures: skipped },
      'redis limiter unavailable; limiting in-process until it answers',
    );
  }
}
