/**
 * Approvals on Workers through the tenant's Durable Object (src/worker/approvals-object.ts), in
 * real workerd: the broker contract the memory and Redis stores pass, then two gateways (each its
 * own broker and store, as two isolates) whose calls are requests of their own: parked through one,
 * decided through the other, woken by the object; the object's deadline alarm and a holder that
 * went away; and without the binding, per-isolate approvals with a warning.
 */
import { abortAllDurableObjects, evictDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/approvals/binding.js';
import { ApprovalBroker } from '../../src/approvals/broker.js';
import type { SettleResult, StoreEvent } from '../../src/approvals/store.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { DurableApprovalStore } from '../../src/worker/approval-store-durable.js';
import { createWorker } from '../../src/worker/worker.js';
import { brokerContract } from '../approvals/broker-contract.js';
import { APPROVALS_BINDINGS, HASTY_TIMEOUT_MS } from './approvals-fixtures.js';
import { approvalLogLines, testModules } from './entry.js';
import { ACME_KEY, OTHER_KEY } from './fixtures.js';
import { beforeTool, ORIGIN, rpc, token } from './helpers.js';

const A = exports.ApprovalGatewayA;
const B = exports.ApprovalGatewayB;
const OBJECT = 'https://approvals.hookgate';

function stubOf(tenant: string): DurableObjectStub {
  return env.HOOKGATE_APPROVALS.get(env.HOOKGATE_APPROVALS.idFromName(tenant));
}

/** One operation on a tenant's object, as the store sends it. */
async function op<T>(tenant: string, body: object): Promise<T> {
  const res = await stubOf(tenant).fetch(`${OBJECT}/op`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`object answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** An approver token of `tenant`, signed as `hookgate token --approver` signs one. */
function approver(tenant = 'acme', key = ACME_KEY, kid = 'acme-1'): Promise<string> {
  return new SignJWT({ tenant, hooks: [], hookgate_role: 'approver' })
    .setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' })
    .setAudience('hookgate')
    .setSubject('alice')
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(key));
}

const push = { command: 'git push origin main' };

/** PicoClaw's before_tool through a gateway: held until a person decides. */
async function hostCall(gateway: Fetcher, hook: string, args: Record<string, unknown> = push) {
  const res = await gateway.fetch(`${ORIGIN}/v1/tenants/acme/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
    body: JSON.stringify(rpc('hook.before_tool', beforeTool('exec', args))),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}

async function list(gateway: Fetcher, tenant = 'acme', auth?: string) {
  const res = await gateway.fetch(`${ORIGIN}/v1/tenants/${tenant}/approvals`, {
    headers: { authorization: `Bearer ${auth ?? (await approver())}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { approvals: { id: string; hook: string; args_digest: string }[] }).approvals;
}

async function decide(
  gateway: Fetcher,
  id: string,
  body: object,
  opts: { tenant?: string; auth?: string } = {},
) {
  const res = await gateway.fetch(`${ORIGIN}/v1/tenants/${opts.tenant ?? 'acme'}/approvals/${id}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${opts.auth ?? (await approver())}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** acme's live event stream through a gateway, read as text. */
async function inbox(gateway: Fetcher) {
  const res = await gateway.fetch(`${ORIGIN}/v1/tenants/acme/approvals/events`, {
    headers: { authorization: `Bearer ${await approver()}` },
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    text: () => text,
    async until(what: string) {
      while (!text.includes(what)) text += decoder.decode((await reader.read()).value, { stream: true });
    },
    cancel: () => reader.cancel(),
  };
}

/** The one request of `hook` waiting in acme's object, as gateway `through` lists it. */
async function waiting(through: Fetcher, hook: string) {
  let found: Awaited<ReturnType<typeof list>> = [];
  await expect
    .poll(async () => {
      found = (await list(through)).filter((r) => r.hook === hook);
      return found.length;
    })
    .toBe(1);
  return found[0]!;
}

beforeAll(async () => {
  // A Durable Object's first request builds its module graph in this pool: seconds on a loaded
  // machine. Done once here so that no test's deadline pays for it.
  await op('acme', { op: 'pending', tenant: 'acme', now: Date.now() });
  await op('globex', { op: 'pending', tenant: 'globex', now: Date.now() });
  expect(await list(A)).toEqual([]);
  expect(await list(B)).toEqual([]);
}, 60_000);

describe('the approval broker on the Durable Object store', () => {
  brokerContract(
    async () => new DurableApprovalStore(env.HOOKGATE_APPROVALS),
    async () => {
      // A round trip through the object: what it was asked before is done, its messages sent.
      await op('acme', { op: 'pending', tenant: 'acme', now: 0 });
      await new Promise((r) => setTimeout(r, 0));
    },
  );
});

describe('approvals across gateways through the tenant’s Durable Object', () => {
  it('a call parked through gateway A is approved through gateway B, and A’s call goes on', async () => {
    const call = hostCall(A, 'guard');
    const request = await waiting(B, 'guard');
    expect(request.args_digest).toBe(await argsDigest(push));
    const decided = await decide(B, request.id, { decision: 'approve', reason: 'release day' });
    expect(decided).toMatchObject({ status: 200, body: { decision: 'approved', approver: 'alice' } });
    expect(await call).toEqual({ action: 'continue' });
    expect(await list(A)).toEqual([]);
  });

  it('inbox streams on either gateway hear the request parked through A and its decision', async () => {
    // Two streams on B (one isolate, two requests: one event heard once, passed to both) and one on A.
    const streams = await Promise.all([inbox(B), inbox(B), inbox(A)]);
    for (const s of streams) await s.until('event: ready');
    // `ready` is sent once each stream's socket to the object is open, so all three are there; a
    // poll rather than one read, as a socket an earlier test closed can take a moment to leave.
    await expect.poll(async () => (await op<{ events: number }>('acme', { op: 'listeners' })).events).toBe(3);
    const call = hostCall(A, 'guard');
    const request = await waiting(B, 'guard');
    for (const s of streams) await s.until(`"id":"${request.id}"`);
    await decide(A, request.id, { decision: 'deny', reason: 'not during the freeze' });
    for (const s of streams) {
      await s.until('event: decided');
      expect(s.text()).toContain('"decision":"denied"');
      expect(s.text().match(/event: created/g)).toHaveLength(1);
      await s.cancel();
    }
    expect(await call).toEqual({ action: 'deny_tool', reason: 'denied by alice: not during the freeze' });
  });

  it('binds the approval to the arguments: another digest is refused and the request stays', async () => {
    const call = hostCall(A, 'guard');
    const request = await waiting(B, 'guard');
    const changed = await argsDigest({ command: 'git push --force origin main' });
    const refused = await decide(B, request.id, { decision: 'approve', args_digest: changed });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'digest_mismatch' } } });
    expect((await list(B)).map((r) => r.id)).toEqual([request.id]);
    const same = await decide(B, request.id, { decision: 'approve', args_digest: await argsDigest(push) });
    expect(same.status).toBe(200);
    expect(await call).toEqual({ action: 'continue' });
  });

  it('is single-use: a second decision through either gateway is refused', async () => {
    const call = hostCall(A, 'guard');
    const request = await waiting(B, 'guard');
    expect((await decide(B, request.id, { decision: 'deny' })).status).toBe(200);
    expect((await call).action).toBe('deny_tool');
    for (const g of [A, B]) {
      const again = await decide(g, request.id, { decision: 'approve' });
      expect(again).toMatchObject({ status: 409, body: { error: { code: 'already_decided' } } });
    }
  });

  it('another tenant’s approver can neither see nor decide acme’s request', async () => {
    const call = hostCall(A, 'guard');
    const request = await waiting(B, 'guard');
    const other = await approver('other', OTHER_KEY, 'other-1');
    // Through its own tenant: the id is not there (another tenant's object).
    const cross = await decide(B, request.id, { decision: 'approve' }, { tenant: 'other', auth: other });
    expect(cross).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await list(B, 'other', other)).toEqual([]);
    // Through acme's route: refused before any store is asked.
    const wrong = await decide(B, request.id, { decision: 'approve' }, { auth: other });
    expect(wrong.status).toBe(401);
    expect((await list(A)).map((r) => r.id)).toEqual([request.id]);
    expect((await decide(A, request.id, { decision: 'deny' })).status).toBe(200);
    expect((await call).action).toBe('deny_tool');
  });

  it('past the call’s deadline the failure mode answers; a decision after it is refused as expired', async () => {
    const call = hostCall(A, 'hasty');
    const request = await waiting(B, 'hasty');
    expect(await call).toMatchObject({
      action: 'deny_tool',
      reason: expect.stringMatching(/no one approved in time/),
    });
    const late = await decide(B, request.id, { decision: 'approve' });
    expect(late).toMatchObject({ status: 410, body: { error: { code: 'expired' } } });
    expect(await list(B)).toEqual([]);
    expect(HASTY_TIMEOUT_MS).toBeLessThan(20_000);
  });
});

/** A request as the broker makes one, ending `spanMs` after it is made. */
async function request(tenant: string, spanMs: number): Promise<ApprovalRequest> {
  const now = Date.now();
  return {
    id: crypto.randomUUID(),
    binding: {
      tenant,
      hook: 'guard',
      host: 'picoclaw',
      tool: 'exec',
      argsDigest: await argsDigest(push),
      configRevision: 'rev-1',
      expiresAt: now + spanMs,
    },
    display: {},
    createdAt: now,
  };
}

/** A park socket to the object for `id`, and the events it is sent. */
async function park(tenant: string, id: string) {
  const res = await stubOf(tenant).fetch(`${OBJECT}/park?id=${id}`, { headers: { upgrade: 'websocket' } });
  const ws = res.webSocket!;
  ws.accept();
  const events: StoreEvent[] = [];
  ws.addEventListener('message', (e) => {
    events.push(JSON.parse(e.data as string));
  });
  return { ws, events };
}

describe('the tenant’s Durable Object', () => {
  it('records a request only while a holder has its park socket open', async () => {
    const r = await request('acme', 60_000);
    const res = await stubOf('acme').fetch(`${OBJECT}/op`, {
      method: 'POST',
      body: JSON.stringify({ op: 'create', request: r }),
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: 'no park socket is open for this request' });
  });

  it('ends a request at its deadline by its alarm when no holder does, and tells the holder', async () => {
    const r = await request('acme', 300);
    const { ws, events } = await park('acme', r.id);
    await op('acme', { op: 'create', request: r });
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]).toMatchObject({
      type: 'settled',
      tenant: 'acme',
      id: r.id,
      outcome: { decision: 'expired', reason: 'no decision before the deadline' },
    });
    ws.close();
  });

  it('ends a pending request expired when its holder’s socket closes (the holder is gone)', async () => {
    const r = await request('acme', 60_000);
    const { ws } = await park('acme', r.id);
    await op('acme', { op: 'create', request: r });
    expect(
      (
        await op<{ requests: ApprovalRequest[] }>('acme', { op: 'pending', tenant: 'acme', now: Date.now() })
      ).requests.map((x) => x.id),
    ).toContain(r.id);
    ws.close(1001, 'going away');
    await expect
      .poll(
        async () =>
          (
            await op<{ entry?: { outcome?: { reason?: string } } }>('acme', {
              op: 'get',
              tenant: 'acme',
              id: r.id,
            })
          ).entry?.outcome?.reason,
      )
      .toBe('the gateway holding the call stopped');
  });

  it('of a decision and the deadline’s expiry sent at once through two stubs, exactly one is written', async () => {
    const r = await request('acme', 60_000);
    const { ws, events } = await park('acme', r.id);
    await op('acme', { op: 'create', request: r });
    const now = r.binding.expiresAt - 1;
    const two = env.HOOKGATE_APPROVALS.get(env.HOOKGATE_APPROVALS.idFromName('acme'));
    const send = (stub: DurableObjectStub, decision: string) =>
      stub
        .fetch(`${OBJECT}/op`, {
          method: 'POST',
          body: JSON.stringify({
            op: 'settle',
            tenant: 'acme',
            id: r.id,
            outcome: { decision, approver: 'alice', decidedAt: now },
            now,
          }),
        })
        .then((res) => res.json() as Promise<SettleResult>);
    const results = await Promise.all([send(stubOf('acme'), 'approved'), send(two, 'expired')]);
    const written = results.filter((x) => x.kind === 'written');
    expect(written).toHaveLength(1);
    const final = (written[0] as { outcome: unknown }).outcome;
    for (const x of results) expect((x as { outcome: unknown }).outcome).toEqual(final);
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]).toMatchObject({ type: 'settled', outcome: final });
    ws.close();
  });
});

describe('when the object goes away under a parked call', () => {
  /** Two brokers on stores of their own (two isolates), and a call parked through the first. */
  async function parkedOn(tenant: string) {
    const holder = new ApprovalBroker({ store: new DurableApprovalStore(env.HOOKGATE_APPROVALS) });
    const decider = new ApprovalBroker({ store: new DurableApprovalStore(env.HOOKGATE_APPROVALS) });
    const { binding } = await request(tenant, 60_000);
    const asked = holder.ask(binding);
    await expect.poll(async () => (await decider.pending(tenant)).map((r) => r.id)).toEqual([asked.id]);
    return { holder, decider, ...asked };
  }

  it('evicted (hibernated), it still wakes the call when a decision comes', async () => {
    const tenant = `evicted-${crypto.randomUUID()}`;
    const { holder, decider, id, outcome } = await parkedOn(tenant);
    await evictDurableObject(stubOf(tenant));
    await decider.decide(tenant, id, { approve: true, approver: 'alice' });
    // Well before the 60 s deadline: woken by the decision, through the hibernated socket.
    expect(await outcome).toMatchObject({ decision: 'approved', approver: 'alice' });
    await Promise.all([holder.close(), decider.close()]);
  });

  it('reset (its sockets cut), the holder attaches again and is woken by the decision', async () => {
    const tenant = `reset-${crypto.randomUUID()}`;
    const { holder, decider, id, outcome } = await parkedOn(tenant);
    await abortAllDurableObjects();
    // The request outlived the reset (storage is kept) and is still pending: nobody saw its holder go.
    await expect.poll(async () => (await decider.pending(tenant)).map((r) => r.id)).toEqual([id]);
    await decider.decide(tenant, id, { approve: false, reason: 'after the reset', approver: 'bob' });
    expect(await outcome).toMatchObject({ decision: 'denied', reason: 'after the reset' });
    await Promise.all([holder.close(), decider.close()]);
  });
});

describe('without the HOOKGATE_APPROVALS binding', () => {
  it('keeps approvals in each isolate and says so at start', async () => {
    const lines: string[] = [];
    const worker = createWorker({ modules: testModules, sink: (l) => lines.push(l) });
    const { HOOKGATE_APPROVALS: _, ...rest } = { ...env, ...APPROVALS_BINDINGS };
    const res = await worker.fetch(
      new Request(`${ORIGIN}/v1/tenants/acme/approvals`, {
        headers: { authorization: `Bearer ${await approver()}` },
      }),
      rest,
    );
    expect(res.status).toBe(200);
    expect(lines.some((l) => l.includes('approvals are per isolate'))).toBe(true);
    // The gateways bound to the object said nothing of the kind.
    expect(approvalLogLines.some((l) => l.includes('approvals are per isolate'))).toBe(false);
  });
});
