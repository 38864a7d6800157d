import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approverToken, bindingOf, sseReader } from '../helpers/approvals.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../helpers/redis.js';

const hooks = { guard: { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } } };

/** Two real gateways on one real Redis: a call held by one is decided through the other's API. */
describe.skipIf(SKIP_REDIS)(`approvals across two gateways sharing Redis${redisNote}`, () => {
  let redis: TestRedis;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    redis = await startRedis();
    const doc = { server: { redis_url: redis.url }, tenants: { acme: tenantDoc(hooks) } };
    a = await startTestGateway(doc);
    b = await startTestGateway(doc);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('a call parked on gateway A is listed and approved through gateway B’s API', async () => {
    const token = await approverToken(b.config, 'acme', 'alice');
    const auth = { authorization: `Bearer ${token}` };
    const stream = await fetch(`${b.url}/v1/tenants/acme/approvals/events`, { headers: auth });
    const events = sseReader(stream.body!);
    expect((await events.next()).event).toBe('ready');

    const { id, outcome } = a.approvals.ask(await bindingOf('acme', { branch: 'main' }), {
      args: { branch: 'main' },
    });
    expect(await events.next()).toMatchObject({ event: 'created', data: { id, args: { branch: 'main' } } });
    const listed = (await (await fetch(`${b.url}/v1/tenants/acme/approvals`, { headers: auth })).json()) as {
      approvals: { id: string }[];
    };
    expect(listed.approvals.map((r) => r.id)).toContain(id);

    const res = await fetch(`${b.url}/v1/tenants/acme/approvals/${id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve', reason: 'ship it' }),
    });
    expect(res.status).toBe(200);
    expect(await outcome).toMatchObject({ decision: 'approved', approver: 'alice', reason: 'ship it' });
    expect(await events.next()).toMatchObject({ event: 'decided', data: { id, decision: 'approved' } });

    // A second decision through A is refused: the first, taken through B, won.
    const again = await fetch(`${a.url}/v1/tenants/acme/approvals/${id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'deny' }),
    });
    expect(again.status).toBe(409);

    // When A stops, the calls it holds end expired, and B's approvers see it.
    const held = a.approvals.ask(await bindingOf('acme', { branch: 'dev' }));
    expect((await events.next()).event).toBe('created');
    await a.close('test');
    expect((await held.outcome).decision).toBe('expired');
    expect(await events.next()).toMatchObject({
      event: 'decided',
      data: { id: held.id, decision: 'expired' },
    });
    const late = await fetch(`${b.url}/v1/tenants/acme/approvals/${held.id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(late.status).toBe(410);
    await events.cancel();
  });
});
