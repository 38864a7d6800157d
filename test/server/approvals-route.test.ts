import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/approvals/binding.js';
import { signDevToken } from '../../src/node/token.js';
import { approverToken, bindingOf, rawToken, sseReader } from '../helpers/approvals.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

const hooks = { guard: { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } } };

describe('approval API on a real gateway', () => {
  let gw: TestGateway;
  let alice: string;

  beforeAll(async () => {
    gw = await startTestGateway({ tenants: { acme: tenantDoc(hooks), globex: tenantDoc(hooks) } });
    alice = await approverToken(gw.config, 'acme', 'alice');
  });
  afterAll(async () => {
    await gw?.close();
  });

  const api = (tenant: string, path = '') => `${gw.url}/v1/tenants/${tenant}/approvals${path}`;
  const list = (tenant: string, token: string) =>
    fetch(api(tenant), { headers: { authorization: `Bearer ${token}` } });
  const decide = (tenant: string, id: string, body: unknown, token = alice) =>
    fetch(api(tenant, `/${id}`), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('lists the tenant’s pending requests with what the caller let be shown', async () => {
    const shown = gw.approvals.ask(await bindingOf('acme', { path: 'a.txt' }), {
      args: { path: 'a.txt' },
      reason: 'writes outside the sandbox',
    });
    const hidden = gw.approvals.ask(await bindingOf('acme', { secret: 'x' }), {});
    const res = await list('acme', alice);
    expect(res.status).toBe(200);
    const { approvals } = (await res.json()) as { approvals: any[] };
    const byId = new Map(approvals.map((a) => [a.id, a]));
    expect(byId.get(shown.id)).toMatchObject({
      tenant: 'acme',
      hook: 'guard',
      host: 'claude-code',
      tool: 'write_file',
      args: { path: 'a.txt' },
      reason: 'writes outside the sandbox',
      args_digest: await argsDigest({ path: 'a.txt' }),
      config_revision: 'rev-1',
    });
    expect(byId.get(hidden.id)).not.toHaveProperty('args');
    // Globex's approver sees none of acme's requests.
    const other = await list('globex', await approverToken(gw.config, 'globex', 'gina'));
    expect(((await other.json()) as { approvals: unknown[] }).approvals).toEqual([]);
    await gw.approvals.decide('acme', shown.id, { approve: false, approver: 'cleanup' });
    await gw.approvals.decide('acme', hidden.id, { approve: false, approver: 'cleanup' });
  });

  it('approves once: the parked call gets approved, a second decision 409, unknown and foreign ids 404', async () => {
    const { id, outcome } = gw.approvals.ask(await bindingOf('acme', { path: 'b.txt' }));
    await new Promise((r) => setImmediate(r));
    const res = await decide('acme', id, {
      decision: 'approve',
      args_digest: await argsDigest({ path: 'b.txt' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id, decision: 'approved', approver: 'alice' });
    expect(await outcome).toMatchObject({ decision: 'approved', approver: 'alice' });

    const again = await decide('acme', id, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as any).error.code).toBe('already_decided');
    const unknown = await decide('acme', crypto.randomUUID(), { decision: 'approve' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('not_found');
    expect((await decide('acme', 'not-an-id', { decision: 'approve' })).status).toBe(404);

    const foreign = gw.approvals.ask(await bindingOf('acme', {}));
    await new Promise((r) => setImmediate(r));
    const gina = await approverToken(gw.config, 'globex', 'gina');
    const cross = await decide('globex', foreign.id, { decision: 'approve' }, gina);
    expect(cross.status).toBe(404);
    await gw.approvals.decide('acme', foreign.id, { approve: false, approver: 'cleanup' });
  });

  it('passes a denial’s reason to the parked call', async () => {
    const { id, outcome } = gw.approvals.ask(await bindingOf('acme', { n: 1 }));
    await new Promise((r) => setImmediate(r));
    const res = await decide('acme', id, { decision: 'deny', reason: 'not in production' });
    expect(res.status).toBe(200);
    expect(await outcome).toMatchObject({
      decision: 'denied',
      reason: 'not in production',
      approver: 'alice',
    });
  });

  it('refuses a decision for other arguments (409 digest_mismatch) and one after the deadline (410)', async () => {
    const { id, outcome } = gw.approvals.ask(await bindingOf('acme', { cmd: 'ls' }));
    await new Promise((r) => setImmediate(r));
    const res = await decide('acme', id, {
      decision: 'approve',
      args_digest: await argsDigest({ cmd: 'rm' }),
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).error.code).toBe('digest_mismatch');
    await gw.approvals.decide('acme', id, { approve: false, approver: 'cleanup' });
    await outcome;

    const short = gw.approvals.ask(await bindingOf('acme', {}, { expiresAt: Date.now() + 300 }));
    expect((await short.outcome).decision).toBe('expired');
    const late = await decide('acme', short.id, { decision: 'approve' });
    expect(late.status).toBe(410);
    expect(((await late.json()) as any).error.code).toBe('expired');
  });

  it('answers a bad body with 400 and an oversized one with 413, never 5xx', async () => {
    const { id } = gw.approvals.ask(await bindingOf('acme', { bad: true }));
    await new Promise((r) => setImmediate(r));
    for (const body of [
      'not json',
      '{"decision":"maybe"}',
      '{"decision":"approve","extra":1}',
      '[]',
      'null',
    ]) {
      const res = await decide('acme', id, body);
      expect(res.status, body).toBe(400);
      expect(((await res.json()) as any).error.code).toBe('bad_request');
    }
    const long = await decide('acme', id, { decision: 'deny', reason: 'x'.repeat(1001) });
    expect(long.status).toBe(400);
    const huge = await decide('acme', id, { decision: 'deny', reason: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    await gw.approvals.decide('acme', id, { approve: false, approver: 'cleanup' });
  });

  it('refuses every token that is not this tenant’s approver, with a clear error', async () => {
    const tenant = gw.config.tenants.get('acme')!;
    const hookToken = await signDevToken(tenant, { hooks: ['*'], ttlSeconds: 600 });
    const now = Math.floor(Date.now() / 1000);
    const claims = { tenant: 'acme', hooks: [], hookgate_role: 'approver', sub: 'mallory' };
    const cases: [string, string | undefined, number, string][] = [
      ['no token', undefined, 401, 'an approver token is required'],
      [
        'a forged token',
        await rawToken({ ...claims, exp: now + 600 }, 'another-secret-0123456789-abcdefghij'),
        401,
        'token did not verify',
      ],
      ['an expired token', await rawToken({ ...claims, exp: now - 60 }), 401, 'token has expired'],
      ['a hook token', hookToken, 403, 'not an approver token'],
      [
        'another tenant’s approver',
        await approverToken(gw.config, 'globex', 'gina'),
        403,
        'not valid for this tenant',
      ],
      [
        'an approver token without sub',
        await rawToken({ tenant: 'acme', hooks: [], hookgate_role: 'approver', exp: now + 600 }),
        403,
        'needs a sub',
      ],
    ];
    for (const [what, token, status, message] of cases) {
      const res = await fetch(api('acme'), { headers: token ? { authorization: `Bearer ${token}` } : {} });
      expect(res.status, what).toBe(status);
      expect(((await res.json()) as any).error.message, what).toContain(message);
      if (status === 401)
        expect(res.headers.get('www-authenticate'), what).toMatch(/^Bearer realm="hookgate"/);
    }
    const inUrl = await fetch(`${api('acme')}?access_token=${alice}`);
    expect(inUrl.status).toBe(401);
    expect(((await inUrl.json()) as any).error.message).toContain('tokens in the URL are not accepted');
    const noTenant = await list('nobody', alice);
    expect(noTenant.status).toBe(401);
    // An approver token calls no hook.
    const call = await gw.post(
      'acme',
      'guard',
      { jsonrpc: '2.0', id: 1, method: 'hook.hello', params: {} },
      alice,
    );
    expect(call.status).toBe(403);
    expect(gw.logs.text).not.toContain(alice);
  });

  it('streams new and decided requests to the tenant’s approver, live', async () => {
    const res = await fetch(api('acme', '/events'), { headers: { authorization: `Bearer ${alice}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = sseReader(res.body!);
    expect(await events.next()).toEqual({ event: 'ready', data: { tenant: 'acme' } });
    // Another tenant's request is not on this stream; acme's next one is.
    const foreign = gw.approvals.ask(await bindingOf('globex', {}));
    const { id, outcome } = gw.approvals.ask(await bindingOf('acme', { live: 1 }), { args: { live: 1 } });
    const created = await events.next();
    expect(created).toMatchObject({ event: 'created', data: { id, tool: 'write_file', args: { live: 1 } } });
    await decide('acme', id, { decision: 'approve' });
    expect(await events.next()).toMatchObject({
      event: 'decided',
      data: { id, decision: 'approved', approver: 'alice' },
    });
    expect((await outcome).decision).toBe('approved');
    await events.cancel();
    await gw.approvals.decide('globex', foreign.id, { approve: false, approver: 'cleanup' });
  });

  it('audits every request and decision, naming the approver and never the token', async () => {
    const { id } = gw.approvals.ask(await bindingOf('acme', { audited: 1 }));
    await new Promise((r) => setImmediate(r));
    await decide('acme', id, { decision: 'deny', reason: 'audit me' });
    const audits = gw.logs.audits().filter((a) => a.approval === id);
    expect(audits.map((a) => a.event)).toEqual(['approval asked', 'approval denied']);
    expect(audits[1]).toMatchObject({
      tenant: 'acme',
      approver: 'alice',
      reason: 'audit me',
      tool: 'write_file',
    });
    expect(gw.logs.text).not.toContain(alice);
  });
});

describe('approval routes and other methods', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ tenants: { acme: tenantDoc(hooks) } });
  });
  afterAll(() => gw?.close());

  it('answers another method with 405 and the route’s own Allow (events is not an id)', async () => {
    const cases: [string, string, string][] = [
      ['/v1/tenants/acme/approvals/events', 'OPTIONS', 'GET, HEAD'],
      ['/v1/tenants/acme/approvals', 'DELETE', 'GET, HEAD'],
      [`/v1/tenants/acme/approvals/${crypto.randomUUID()}`, 'PUT', 'POST'],
      ['/approvals', 'POST', 'GET, HEAD'],
    ];
    for (const [path, method, allow] of cases) {
      const res = await fetch(`${gw.url}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
  });
});

describe('a stopping gateway and the approvals it holds', () => {
  it('ends its parked calls expired and its open event streams, so neither holds the stop', async () => {
    const gw = await startTestGateway({ tenants: { acme: tenantDoc(hooks) } });
    const token = await approverToken(gw.config, 'acme', 'alice');
    const res = await fetch(`${gw.url}/v1/tenants/acme/approvals/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const events = sseReader(res.body!);
    expect((await events.next()).event).toBe('ready');
    const { outcome } = gw.approvals.ask(await bindingOf('acme', {}));
    expect((await events.next()).event).toBe('created');
    await gw.close('test');
    expect(await outcome).toMatchObject({
      decision: 'expired',
      reason: 'the gateway holding the call stopped',
    });
    expect(await events.next()).toMatchObject({ event: 'decided', data: { decision: 'expired' } });
    // The stream ended as a stream ends, not cut with the connection after the grace.
    await expect(events.next()).rejects.toThrow('the event stream ended');
    const stopped = gw.logs.lines.find((l) => l.msg === 'shut down');
    expect(stopped?.cut.http_calls).toBe(0);
  });
});
