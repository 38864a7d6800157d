import { Redis } from 'ioredis';
import {
  type ApprovalStore,
  lateOutcome,
  type SettleResult,
  type StoreEvent,
  type StoredApproval,
} from '../../approvals/store.js';
import type { ApprovalOutcome, ApprovalRequest } from '../../approvals/types.js';
import type { GatewayConfig } from '../../config/runtime.js';
import type { AssembleOptions } from '../../server/assemble.js';
import type { Logger } from '../../server/logger.js';
import { RedisClient, type RedisTlsOptions } from './redis-client.js';
import { randomUuid } from '../../lib/uuid.js';

export interface RedisApprovalStoreOptions {
  /** redis:// or rediss:// (server.redis_url); never logged. */
  url: string;
  tls?: RedisTlsOptions;
  /** Each command settles within this. */
  timeoutMs?: number;
  /**
   * How long this replica counts as alive without renewing its lease. Requests held by a replica
   * whose lease lapsed (it crashed or restarted) end `expired` within about this long.
   */
  leaseMs?: number;
  /** Settled requests are kept this long, so a late decider hears ALREADY_DECIDED. */
  retentionMs?: number;
  /** Key prefix (tests give each store family its own). */
  prefix?: string;
  log?: Logger;
}

const HOLDER_GONE = 'the gateway holding the call stopped';

/**
 * Requests in Redis, shared by every replica on it. Each request is a hash (the request, its
 * deadline, the replica holding the call, and once settled its outcome) beside two sorted sets of
 * what is pending (per tenant, and over all tenants for the orphan sweep). Every settle is one Lua
 * script, so of racing settles on any replicas exactly one writes; the script also publishes the
 * settlement, which wakes the replica holding the call wherever it was decided.
 *
 * Each replica holds a lease (a key with a TTL it renews). A request whose holder's lease lapsed can
 * no longer be answered to anyone, so any replica's sweep, listing or decision ends it `expired`.
 * The scripts name keys they compute (one Redis, not a cluster).
 */
export class RedisApprovalStore implements ApprovalStore {
  private readonly client: RedisClient;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly owner = randomUuid();
  private readonly leaseMs: number;
  private readonly retentionMs: number;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private readonly log?: Logger;
  private ready?: Promise<void>;
  private closed = false;

  constructor(opts: RedisApprovalStoreOptions) {
    this.prefix = opts.prefix ?? 'hookgate:approvals:';
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.retentionMs = opts.retentionMs ?? 10 * 60_000;
    this.log = opts.log;
    const timeoutMs = opts.timeoutMs ?? 2_000;
    this.client = new RedisClient(opts.url, { timeoutMs, tls: opts.tls });
    this.subscriber = subscriberConnection(opts.url, opts.tls, timeoutMs);
    this.subscriber.on('error', () => {
      // Reconnects by itself and subscribes again; a missed wake-up still ends at the deadline.
    });
    this.subscriber.on('message', (_channel: string, message: string) => this.onMessage(message));
    const renew = () => this.client.command(['SET', this.ownerKey(this.owner), '1', 'PX', this.leaseMs]);
    void this.whenReady().catch(() => {});
    // Renewed three times a lease; each renewal also sweeps requests whose holder is gone.
    this.heartbeat = setInterval(
      () => {
        renew()
          .then(() => this.sweep())
          .catch((err: unknown) => this.log?.warn({ err: String(err) }, 'approval lease not renewed'));
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    this.heartbeat.unref?.();
  }

  /** Settles once this replica's lease is held and it hears every settlement. */
  whenReady(): Promise<void> {
    // Tried again on the next request after a failure (Redis down at start): until then every new
    // request fails to be recorded, and its call ends expired.
    if (!this.ready) {
      const attempt = Promise.all([
        this.client.command(['SET', this.ownerKey(this.owner), '1', 'PX', this.leaseMs]),
        this.subscriber.subscribe(this.channel),
      ]).then(() => undefined);
      this.ready = attempt;
      attempt.catch(() => {
        if (this.ready === attempt) this.ready = undefined;
      });
    }
    return this.ready;
  }

  async create(request: ApprovalRequest): Promise<void> {
    await this.whenReady();
    const { tenant, expiresAt } = request.binding;
    const ttl = Math.max(1, expiresAt - request.createdAt) + this.retentionMs;
    await this.client.command([
      'EVAL',
      CREATE,
      4,
      this.reqKey(tenant, request.id),
      this.pendingKey(tenant),
      this.allPendingKey(),
      this.channel,
      JSON.stringify(request),
      expiresAt,
      this.owner,
      ttl,
      request.id,
      request.createdAt,
      member(tenant, request.id),
      JSON.stringify({ type: 'created', request } satisfies StoreEvent),
    ]);
  }

  async get(tenant: string, id: string): Promise<StoredApproval | undefined> {
    const [request, outcome] = (await this.client.command([
      'HMGET',
      this.reqKey(tenant, id),
      'request',
      'outcome',
    ])) as (string | null)[];
    if (!request) return undefined;
    return { request: JSON.parse(request), ...(outcome ? { outcome: JSON.parse(outcome) } : {}) };
  }

  async settle(tenant: string, id: string, outcome: ApprovalOutcome, now: number): Promise<SettleResult> {
    const late = lateOutcome(now);
    const orphaned = lateOutcome(now, HOLDER_GONE);
    const message = (o: ApprovalOutcome) =>
      JSON.stringify({ type: 'settled', tenant, id, outcome: o } satisfies StoreEvent);
    const reply = (await this.client.command([
      'EVAL',
      SETTLE,
      4,
      this.reqKey(tenant, id),
      this.pendingKey(tenant),
      this.allPendingKey(),
      this.channel,
      outcome.decision === 'expired' ? '1' : '0',
      now,
      this.ownerKey(''),
      id,
      member(tenant, id),
      this.retentionMs,
      JSON.stringify(outcome),
      message(outcome),
      JSON.stringify(late),
      message(late),
      JSON.stringify(orphaned),
      message(orphaned),
    ])) as string[];
    if (reply[0] === 'missing') return { kind: 'missing' };
    return { kind: reply[0] as 'written' | 'already', outcome: JSON.parse(reply[1]) };
  }

  async pending(tenant: string, now: number): Promise<ApprovalRequest[]> {
    const reply = (await this.client.command([
      'EVAL',
      PENDING,
      1,
      this.pendingKey(tenant),
      this.reqKey(tenant, ''),
      this.ownerKey(''),
    ])) as (string | number)[];
    const out: ApprovalRequest[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      const request = JSON.parse(String(reply[i])) as ApprovalRequest;
      if (reply[i + 1] === 0) {
        void this.endOrphan(tenant, request.id);
        continue;
      }
      if (request.binding.expiresAt > now) out.push(request);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every pending request whose holder's lease lapsed; returns how many it ended. */
  async sweep(): Promise<number> {
    const orphans = (await this.client.command([
      'EVAL',
      ORPHANS,
      1,
      this.allPendingKey(),
      this.prefix,
      this.ownerKey(''),
    ])) as string[];
    let ended = 0;
    for (const m of orphans) {
      const i = m.indexOf('/');
      if ((await this.endOrphan(m.slice(0, i), m.slice(i + 1))) === 'written') ended++;
    }
    return ended;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.listeners.clear();
    await this.client.command(['DEL', this.ownerKey(this.owner)]).catch(() => {});
    this.subscriber.disconnect();
    await this.client.close();
  }

  private async endOrphan(tenant: string, id: string): Promise<SettleResult['kind']> {
    const now = Date.now();
    try {
      const result = await this.settle(tenant, id, lateOutcome(now, HOLDER_GONE), now);
      if (result.kind === 'written') {
        this.log?.info(
          { audit: { event: 'approval expired', tenant, approval: id, reason: HOLDER_GONE } },
          'approval expired',
        );
      }
      return result.kind;
    } catch (err) {
      this.log?.warn({ tenant, approval: id, err: String(err) }, 'could not end an orphaned approval');
      return 'missing';
    }
  }

  private onMessage(message: string): void {
    let event: StoreEvent;
    try {
      event = JSON.parse(message);
    } catch {
      return;
    }
    for (const l of this.listeners) l(event);
  }

  private get channel(): string {
    return `${this.prefix}events`;
  }
  private reqKey(tenant: string, id: string): string {
    return `${this.prefix}req:${tenant}:${id}`;
  }
  private pendingKey(tenant: string): string {
    return `${this.prefix}pending:${tenant}`;
  }
  private allPendingKey(): string {
    return `${this.prefix}pending`;
  }
  private ownerKey(owner: string): string {
    return `${this.prefix}owner:${owner}`;
  }
}

/** Tenant names cannot hold "/", request ids are UUIDs: the pair is unambiguous. */
function member(tenant: string, id: string): string {
  return `${tenant}/${id}`;
}

/** Pub/sub needs a connection of its own; configured as RedisClient configures its one. */
function subscriberConnection(url: string, tls: RedisTlsOptions | undefined, timeoutMs: number): Redis {
  const target = new URL(url);
  return new Redis({
    host: target.hostname.replace(/^\[|\]$/g, ''),
    port: Number(target.port || 6379),
    username: target.username ? decodeURIComponent(target.username) : undefined,
    password: target.password ? decodeURIComponent(target.password) : undefined,
    tls:
      target.protocol === 'rediss:'
        ? {
            rejectUnauthorized: true,
            ...(tls?.ca ? { ca: tls.ca } : {}),
            ...(tls?.servername ? { servername: tls.servername } : {}),
          }
        : undefined,
    protocol: 2,
    connectTimeout: Math.max(1_000, timeoutMs),
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    disableClientInfo: true,
  });
}

// KEYS: request hash, tenant's pending set, all pending, channel.
// ARGV: request JSON, deadline, holder, TTL ms, id, created at, member, created event.
const CREATE = `
redis.call('HSET', KEYS[1], 'request', ARGV[1], 'expires_at', ARGV[2], 'owner', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[7])
redis.call('PUBLISH', KEYS[4], ARGV[8])
return 1`;

// KEYS: request hash, tenant's pending set, all pending, channel.
// ARGV: is-expiry, now, holder key prefix, id, member, retention ms, then outcome and event pairs:
// the one asked for, the deadline's, the gone holder's.
const SETTLE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local current = redis.call('HGET', KEYS[1], 'outcome')
if current then return {'already', current} end
local outcome, event = ARGV[7], ARGV[8]
if ARGV[1] == '0' then
  local fields = redis.call('HMGET', KEYS[1], 'expires_at', 'owner')
  if tonumber(ARGV[2]) >= tonumber(fields[1]) then
    outcome, event = ARGV[9], ARGV[10]
  elseif redis.call('EXISTS', ARGV[3] .. fields[2]) == 0 then
    outcome, event = ARGV[11], ARGV[12]
  end
end
redis.call('HSET', KEYS[1], 'outcome', outcome)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('ZREM', KEYS[3], ARGV[5])
redis.call('PUBLISH', KEYS[4], event)
return {'written', outcome}`;

// KEYS: tenant's pending set. ARGV: request key prefix, holder key prefix.
// Returns request JSON and 1/0 (holder alive) pairs; drops ids whose hash has expired.
const PENDING = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local v = redis.call('HMGET', ARGV[1] .. id, 'request', 'owner', 'outcome')
  if not v[1] then
    redis.call('ZREM', KEYS[1], id)
  elseif not v[3] then
    table.insert(out, v[1])
    table.insert(out, redis.call('EXISTS', ARGV[2] .. v[2]))
  end
end
return out`;

// KEYS: all pending. ARGV: key prefix, holder key prefix. Returns members whose holder is gone.
const ORPHANS = `
local out = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, 999)) do
  local slash = string.find(m, '/', 1, true)
  local key = ARGV[1] .. 'req:' .. string.sub(m, 1, slash - 1) .. ':' .. string.sub(m, slash + 1)
  local owner = redis.call('HGET', key, 'owner')
  if not owner then
    redis.call('ZREM', KEYS[1], m)
  elseif redis.call('EXISTS', ARGV[2] .. owner) == 0 then
    table.insert(out, m)
  end
end
return out`;

/** With `server.redis_url`, approval requests shared through Redis; without, each process keeps its own. */
export function redisApprovalStoreFactory(config: GatewayConfig): AssembleOptions['createApprovalStore'] {
  const url = config.server.redisUrl;
  if (!url) return undefined;
  const tls = config.server.redisTls;
  return ({ log }) => new RedisApprovalStore({ url, tls, log });
}
