import { afterEach, beforeEach, expect, it } from 'vitest';
import { argsDigest } from '../../src/approvals/binding.js';
import { ApprovalBroker } from '../../src/approvals/broker.js';
import type { ApprovalStore, StoreEvent } from '../../src/approvals/store.js';
import type { ApprovalBinding, ApprovalEvent } from '../../src/approvals/types.js';
import { ManualClock } from '../helpers/manual-clock.js';

export interface ContractContext {
  clock: ManualClock;
  broker: ApprovalBroker;
  store: ApprovalStore;
}

export async function bindingFor(
  clock: ManualClock,
  over: Partial<ApprovalBinding> = {},
  args: unknown = { path: '/etc/hosts' },
): Promise<ApprovalBinding> {
  return {
    tenant: 'acme',
    hook: 'guard',
    host: 'claude-code',
    tool: 'read_file',
    argsDigest: await argsDigest(args),
    configRevision: 'rev-1',
    expiresAt: clock.now() + 60_000,
    ...over,
  };
}

/** The outcome if it has settled by the time the store's work so far is done, else 'pending'. */
export async function settledOrPending<T>(p: Promise<T>, flush: () => Promise<void>): Promise<T | 'pending'> {
  let value: T | 'pending' = 'pending';
  void p.then((v) => {
    value = v;
  });
  await flush();
  return value;
}

/**
 * What every store must give the broker: the same tests run on the in-memory store and on Redis.
 * `flush` waits until the store's asynchronous work started so far is done (a round trip).
 */
export function brokerContract(makeStore: () => Promise<ApprovalStore>, flush: () => Promise<void>): void {
  const ctx = {} as ContractContext;
  beforeEach(async () => {
    ctx.clock = new ManualClock();
    ctx.store = await makeStore();
    ctx.broker = new ApprovalBroker({ store: ctx.store, clock: ctx.clock });
  });
  afterEach(async () => {
    await ctx.broker.close();
  });

  /** ask, and wait until the request is recorded (its deadline timer is then set). */
  async function asked(binding: ApprovalBinding, display = {}) {
    const asked = ctx.broker.ask(binding, display);
    for (let i = 0; i < 50 && ctx.clock.scheduled === 0; i++) await flush();
    expect(ctx.clock.scheduled).toBe(1);
    return asked;
  }

  it('parks a call until an approver approves it, then lists it no more', async () => {
    const binding = await bindingFor(ctx.clock);
    const events: ApprovalEvent[] = [];
    ctx.broker.subscribe('acme', (e) => events.push(e));
    const { id, outcome } = await asked(binding, {
      args: { path: '/etc/hosts' },
      reason: 'reads system files',
    });
    const pending = await ctx.broker.pending('acme');
    expect(pending.map((r) => r.id)).toEqual([id]);
    expect(pending[0].binding).toEqual(binding);
    expect(pending[0].display).toEqual({ args: { path: '/etc/hosts' }, reason: 'reads system files' });
    expect(await settledOrPending(outcome, flush)).toBe('pending');

    const decided = await ctx.broker.decide('acme', id, { approve: true, approver: 'alice' });
    expect(decided).toMatchObject({ decision: 'approved', approver: 'alice', decidedAt: ctx.clock.now() });
    expect(await outcome).toEqual(decided);
    expect(await ctx.broker.pending('acme')).toEqual([]);
    for (let i = 0; i < 50 && events.length < 2; i++) await flush();
    expect(events.map((e) => e.type)).toEqual(['created', 'decided']);
  });

  it('passes a denial and its reason to the parked call', async () => {
    const { id, outcome } = await asked(await bindingFor(ctx.clock));
    await ctx.broker.decide('acme', id, { approve: false, reason: 'not on a Friday', approver: 'bob' });
    expect(await outcome).toMatchObject({ decision: 'denied', reason: 'not on a Friday', approver: 'bob' });
  });

  it('is single-use: a second decision is refused with ALREADY_DECIDED and changes nothing', async () => {
    const { id, outcome } = await asked(await bindingFor(ctx.clock));
    await ctx.broker.decide('acme', id, { approve: false, approver: 'bob' });
    await expect(ctx.broker.decide('acme', id, { approve: true, approver: 'mallory' })).rejects.toMatchObject(
      {
        code: 'ALREADY_DECIDED',
      },
    );
    expect((await outcome).decision).toBe('denied');
  });

  it('of many approvers deciding at once, exactly one wins', async () => {
    const { id, outcome } = await asked(await bindingFor(ctx.clock));
    const settled: StoreEvent[] = [];
    ctx.store.subscribe((e) => {
      if (e.type === 'settled') settled.push(e);
    });
    const tries = Array.from({ length: 8 }, (_, i) =>
      ctx.broker.decide('acme', id, { approve: i % 2 === 0, approver: `approver-${i}` }),
    );
    const results = await Promise.allSettled(tries);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason.code).toBe('ALREADY_DECIDED');
    }
    expect(await outcome).toEqual((won[0] as PromiseFulfilledResult<unknown>).value);
    for (let i = 0; i < 50 && settled.length < 1; i++) await flush();
    await flush();
    expect(settled).toHaveLength(1);
  });

  it('answers NOT_FOUND for an unknown id and for another tenant’s id alike, and tells that tenant nothing', async () => {
    const { id, outcome } = await asked(await bindingFor(ctx.clock));
    const otherEvents: ApprovalEvent[] = [];
    ctx.broker.subscribe('globex', (e) => otherEvents.push(e));
    const unknown = ctx.broker.decide('acme', crypto.randomUUID(), { approve: true, approver: 'a' });
    await expect(unknown).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const cross = ctx.broker.decide('globex', id, { approve: true, approver: 'eve' });
    await expect(cross).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await ctx.broker.pending('globex')).toEqual([]);
    expect(await settledOrPending(outcome, flush)).toBe('pending');
    expect(otherEvents).toEqual([]);
  });

  it('refuses a decision for other arguments (DIGEST_MISMATCH) and keeps the request open', async () => {
    const binding = await bindingFor(ctx.clock, {}, { path: '/etc/hosts' });
    const { id, outcome } = await asked(binding);
    const changed = await argsDigest({ path: '/etc/shadow' });
    await expect(
      ctx.broker.decide('acme', id, { approve: true, approver: 'alice', argsDigest: changed }),
    ).rejects.toMatchObject({ code: 'DIGEST_MISMATCH' });
    expect((await ctx.broker.pending('acme')).map((r) => r.id)).toEqual([id]);
    // The same arguments in another key order are the same digest.
    const same = await argsDigest(JSON.parse('{"path":"/etc/hosts"}'));
    await ctx.broker.decide('acme', id, { approve: true, approver: 'alice', argsDigest: same });
    expect((await outcome).decision).toBe('approved');
  });

  it('ends a request expired at its deadline; a decision after it is refused with EXPIRED', async () => {
    const binding = await bindingFor(ctx.clock);
    const { id, outcome } = await asked(binding);
    ctx.clock.advance(60_000);
    expect(await outcome).toMatchObject({ decision: 'expired' });
    expect(await ctx.broker.pending('acme')).toEqual([]);
    await expect(ctx.broker.decide('acme', id, { approve: true, approver: 'alice' })).rejects.toMatchObject({
      code: 'EXPIRED',
    });
  });

  it('refuses a decision past the deadline even when the deadline timer has not run yet', async () => {
    const binding = await bindingFor(ctx.clock);
    const { id, outcome } = await asked(binding);
    ctx.clock.set(binding.expiresAt);
    await expect(ctx.broker.decide('acme', id, { approve: true, approver: 'alice' })).rejects.toMatchObject({
      code: 'EXPIRED',
    });
    expect((await outcome).decision).toBe('expired');
  });

  it('gives exactly one outcome when a decision and the deadline land in the same instant (deadline first)', async () => {
    const binding = await bindingFor(ctx.clock);
    const { id, outcome } = await asked(binding);
    ctx.clock.set(binding.expiresAt);
    ctx.clock.fireDue();
    const decision = ctx.broker.decide('acme', id, { approve: true, approver: 'alice' });
    await expect(decision).rejects.toMatchObject({ code: 'EXPIRED' });
    expect((await outcome).decision).toBe('expired');
  });

  it('gives exactly one outcome when a decision and the deadline land in the same instant (decision first)', async () => {
    const binding = await bindingFor(ctx.clock);
    const { id, outcome } = await asked(binding);
    const settled: StoreEvent[] = [];
    ctx.store.subscribe((e) => {
      if (e.type === 'settled') settled.push(e);
    });
    ctx.clock.set(binding.expiresAt - 1);
    const decision = ctx.broker.decide('acme', id, { approve: true, approver: 'alice' });
    // The deadline's timer fires while the decision is on its way to the store.
    ctx.clock.advance(1);
    const [decided, ended] = await Promise.allSettled([decision, outcome]);
    const final = (ended as PromiseFulfilledResult<{ decision: string }>).value;
    if (decided.status === 'fulfilled') expect(final).toEqual(decided.value);
    else {
      expect(decided.reason.code).toBe('EXPIRED');
      expect(final.decision).toBe('expired');
    }
    for (let i = 0; i < 50 && settled.length < 1; i++) await flush();
    await flush();
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ type: 'settled', outcome: final });
  });

  it('ends a call the caller abandoned, and one asked for with its deadline past, expired', async () => {
    const abort = new AbortController();
    const { id, outcome } = ctx.broker.ask(await bindingFor(ctx.clock), {}, { signal: abort.signal });
    for (let i = 0; i < 50 && ctx.clock.scheduled === 0; i++) await flush();
    abort.abort();
    expect(await outcome).toMatchObject({ decision: 'expired', reason: 'the call was abandoned' });
    await expect(ctx.broker.decide('acme', id, { approve: true, approver: 'a' })).rejects.toMatchObject({
      code: 'EXPIRED',
    });
    const late = ctx.broker.ask(await bindingFor(ctx.clock, { expiresAt: ctx.clock.now() }));
    expect((await late.outcome).decision).toBe('expired');
    expect(await ctx.broker.pending('acme')).toEqual([]);
  });

  it('ends the calls parked here expired when the broker closes', async () => {
    const { outcome } = await asked(await bindingFor(ctx.clock));
    await ctx.broker.close();
    expect(await outcome).toMatchObject({
      decision: 'expired',
      reason: 'the gateway holding the call stopped',
    });
  });
}
