import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argsDigest } from '../../../src/approvals/binding.js';
import { ApprovalBroker } from '../../../src/approvals/broker.js';
import type { ApprovalEvent } from '../../../src/approvals/types.js';
import { RedisApprovalStore } from '../../../src/node/redis/approval-store-redis.js';
import { RedisClient } from '../../../src/node/redis/redis-client.js';
import { brokerContract } from '../../approvals/broker-contract.js';
import { REPO } from '../../helpers/gateway.js';
import { redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../../helpers/redis.js';

let redis: TestRedis;
let probe: RedisClient;
let family = 0;

beforeAll(async () => {
  if (SKIP_REDIS) return;
  redis = await startRedis();
  probe = new RedisClient(redis.url, { timeoutMs: 2_000 });
});
afterAll(async () => {
  await probe?.close();
  await redis?.stop();
});

/** A round trip to Redis, and a turn of the event loop for what its replies started. */
const flush = async () => {
  await probe.command(['PING']);
  await new Promise<void>((r) => setImmediate(r));
};

async function readyStore(prefix: string, leaseMs?: number): Promise<RedisApprovalStore> {
  const store = new RedisApprovalStore({ url: redis.url, prefix, leaseMs });
  await store.whenReady();
  return store;
}

/** The first event for this tenant that matches, from a broker. */
function nextEvent(broker: ApprovalBroker, match: (e: ApprovalEvent) => boolean): Promise<ApprovalEvent> {
  return new Promise((resolve) => {
    const off = broker.subscribe('acme', (e) => {
      if (!match(e)) return;
      off();
      resolve(e);
    });
  });
}

async function binding() {
  return {
    tenant: 'acme',
    hook: 'guard',
    host: 'claude-code',
    tool: 'write_file',
    argsDigest: await argsDigest({ path: 'notes.txt' }),
    configRevision: 'rev-1',
    expiresAt: Date.now() + 120_000,
  };
}

describe.skipIf(SKIP_REDIS)(`approval broker on the Redis store${redisNote}`, () => {
  brokerContract(() => readyStore(`contract${family++}:`), flush);
});

describe.skipIf(SKIP_REDIS)(`approvals shared by two gateways through one Redis${redisNote}`, () => {
  it('a call parked on gateway A is approved through gateway B, and A is woken', async () => {
    const prefix = `shared${family++}:`;
    const a = new ApprovalBroker({ store: await readyStore(prefix) });
    const b = new ApprovalBroker({ store: await readyStore(prefix) });
    try {
      const seen = nextEvent(b, (e) => e.type === 'created');
      const { id, outcome } = a.ask(await binding(), { args: { path: 'notes.txt' } });
      expect(((await seen) as { request: { id: string } }).request.id).toBe(id);
      expect((await b.pending('acme')).map((r) => r.id)).toEqual([id]);
      const decided = await b.decide('acme', id, { approve: true, approver: 'alice', reason: 'fine' });
      expect(await outcome).toEqual(decided);
      expect(decided).toMatchObject({ decision: 'approved', approver: 'alice', reason: 'fine' });
      await expect(a.decide('acme', id, { approve: false, approver: 'bob' })).rejects.toMatchObject({
        code: 'ALREADY_DECIDED',
      });
      expect(await a.pending('acme')).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a gateway that stops ends the calls it held expired, for every replica', async () => {
    const prefix = `stop${family++}:`;
    const a = new ApprovalBroker({ store: await readyStore(prefix) });
    const b = new ApprovalBroker({ store: await readyStore(prefix) });
    try {
      const { id, outcome } = a.ask(await binding());
      await nextEvent(b, (e) => e.type === 'created');
      const ended = nextEvent(b, (e) => e.type === 'decided');
      await a.close();
      expect(await outcome).toMatchObject({ decision: 'expired' });
      expect(await ended).toMatchObject({ id, outcome: { decision: 'expired' } });
      await expect(b.decide('acme', id, { approve: true, approver: 'alice' })).rejects.toMatchObject({
        code: 'EXPIRED',
      });
    } finally {
      await b.close();
    }
  });

  it('the calls of a gateway process that is killed end expired once its lease lapses', async () => {
    const prefix = `killed${family++}:`;
    const b = new ApprovalBroker({ store: await readyStore(prefix, 600) });
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/helpers/approval-holder.ts', redis.url, prefix, '600'],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const lines = createInterface({ input: holder.stdout! });
      const first = await new Promise<string>((resolve) => lines.once('line', resolve));
      const { id } = JSON.parse(first) as { id: string };
      expect((await b.pending('acme')).map((r) => r.id)).toEqual([id]);
      const ended = nextEvent(b, (e) => e.type === 'decided');
      const exited = new Promise((r) => holder.once('exit', r));
      holder.kill('SIGKILL');
      await exited;
      // B's lease renewal sweeps: the holder's lease lapses within 600 ms of its death.
      expect(await ended).toMatchObject({
        id,
        outcome: { decision: 'expired', reason: 'the gateway holding the call stopped' },
      });
      expect(await b.pending('acme')).toEqual([]);
      await expect(b.decide('acme', id, { approve: true, approver: 'alice' })).rejects.toMatchObject({
        code: 'EXPIRED',
      });
    } finally {
      holder.kill('SIGKILL');
      await b.close();
    }
  }, 30_000);
});

describe('approvals on a Redis that is down', () => {
  it('ends a call it cannot record expired, never approved, and keeps the process up', async () => {
    // Nothing listens on port 1 of loopback.
    const store = new RedisApprovalStore({ url: 'redis://127.0.0.1:1', timeoutMs: 300 });
    const broker = new ApprovalBroker({ store });
    try {
      const { outcome } = broker.ask(await binding());
      expect(await outcome).toMatchObject({
        decision: 'expired',
        reason: 'the approval request could not be recorded',
      });
      await expect(broker.pending('acme')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    } finally {
      await broker.close();
    }
  });
});
