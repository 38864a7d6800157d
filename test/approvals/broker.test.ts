import { describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/approvals/binding.js';
import { ApprovalBroker } from '../../src/approvals/broker.js';
import { MemoryApprovalStore } from '../../src/approvals/memory-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { bindingFor, brokerContract } from './broker-contract.js';

describe('approval broker on the in-memory store', () => {
  brokerContract(
    async () => new MemoryApprovalStore(),
    () => new Promise<void>((r) => setImmediate(r)),
  );
});

describe('approval broker', () => {
  it('ends a request it cannot record expired, never approved', async () => {
    const clock = new ManualClock();
    // The in-memory store, but every write of a new request fails (a store that is down).
    const broken: ApprovalStore = new MemoryApprovalStore();
    broken.create = () => Promise.reject(new Error('store down'));
    const broker = new ApprovalBroker({ store: broken, clock });
    const { outcome } = broker.ask(await bindingFor(clock));
    expect(await outcome).toMatchObject({
      decision: 'expired',
      reason: 'the approval request could not be recorded',
    });
  });

  it('binds to the canonical JSON of the arguments (key order does not matter, values do)', async () => {
    const a = await argsDigest({ b: 1, a: { y: [1, 2], x: 'z' } });
    const b = await argsDigest({ a: { x: 'z', y: [1, 2] }, b: 1 });
    const c = await argsDigest({ a: { x: 'z', y: [2, 1] }, b: 1 });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('says a subscription is ready at once where events are shared, and only when a watching store says so', async () => {
    const clock = new ManualClock();
    const shared = new ApprovalBroker({ store: new MemoryApprovalStore(), clock });
    let sharedReady = 0;
    shared.subscribe(
      'acme',
      () => {},
      () => sharedReady++,
    )();
    expect(sharedReady).toBe(1);
    await shared.close();

    // A store that hears a tenant's events on a connection of the subscriber's own (the Durable
    // Object store): a list made before that connection is open could miss a creation.
    let open: (() => void) | undefined;
    const watching: ApprovalStore = new MemoryApprovalStore();
    watching.watch = (_tenant, _listener, ready) => {
      open = ready;
      return () => {};
    };
    const broker = new ApprovalBroker({ store: watching, clock });
    let ready = 0;
    const off = broker.subscribe(
      'acme',
      () => {},
      () => ready++,
    );
    expect(ready).toBe(0);
    open?.();
    expect(ready).toBe(1);
    off();
    await broker.close();
  });
});
