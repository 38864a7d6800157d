/**
 * A rule's ask_human through a real gateway: the host's call is held until a person decides
 * through the gateway's approvals (here, the broker the HTTP API and the inbox use), bound to that
 * call, or until the call's deadline, when the hook's failure mode answers. The hook is never asked.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/approvals/binding.js';
import { PUSH_NEEDS_A_PERSON as PUSH } from '../helpers/approvals.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        guard: {
          ...rec,
          modes: ['tool', 'approve'],
          rules: [PUSH],
          on_failure: 'closed',
          timeout_ms: 60_000,
        },
        // No rules: the hook's own answer asks for a person.
        asker: { ...rec, modes: ['tool', 'approve'], on_failure: 'closed', timeout_ms: 60_000 },
        // A deadline a test can wait out: 300 ms, then the failure mode answers.
        hasty: { ...rec, modes: ['tool'], rules: [PUSH], on_failure: 'closed', timeout_ms: 300 },
      }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
});

const push = { tool: 'exec', arguments: { command: 'git push origin main' } };

/** The one request waiting for tenant acme, once the call has been parked. */
async function parked() {
  await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(1);
  return (await gw.approvals.pending('acme'))[0]!;
}

describe('ask_human: a person decides through the gateway', () => {
  it('holds the call bound to it; an approval lets it go on, the hook never asked', async () => {
    const call = gw.call('guard', 'hook.before_tool', push);
    const request = await parked();
    expect(request.binding).toMatchObject({
      tenant: 'acme',
      hook: 'guard',
      host: 'picoclaw',
      tool: 'exec',
      argsDigest: await argsDigest(push.arguments),
      configRevision: gw.config.revision,
    });
    expect(request.display).toEqual({ args: push.arguments, reason: 'a push leaves the machine' });
    await gw.approvals.decide('acme', request.id, { approve: true, approver: 'alice' });
    expect((await call).result).toEqual({ action: 'continue' });
    expect(recorder().calls).toEqual([]);
  });

  it('on PicoClaw’s approval, a person’s approval is the approval', async () => {
    const call = gw.call('guard', 'hook.approve_tool', push);
    const request = await parked();
    await gw.approvals.decide('acme', request.id, {
      approve: true,
      approver: 'alice',
      reason: 'release day',
    });
    expect((await call).result).toEqual({ approved: true, reason: 'approved by alice: release day' });
  });

  it('a denial is the host’s deny with the person’s reason, and is audited', async () => {
    const audits = gw.logs.audits().length;
    const call = gw.call('guard', 'hook.before_tool', push);
    const request = await parked();
    await gw.approvals.decide('acme', request.id, { approve: false, approver: 'bob', reason: 'not today' });
    expect((await call).result).toEqual({ action: 'deny_tool', reason: 'denied by bob: not today' });
    // The approval's own trail (asked, then denied by whom) and the call's refusal. The held call
    // resumes as soon as the store settles the request, so its refusal line may come before or
    // after the decider's line (as with a shared store, whose event comes when it comes).
    const lines = gw.logs.audits().slice(audits);
    expect(lines.filter((l) => l.approval === request.id)).toEqual([
      expect.objectContaining({ event: 'approval asked', approval: request.id, tool: 'exec' }),
      expect.objectContaining({ event: 'approval denied', approval: request.id, approver: 'bob' }),
    ]);
    expect(lines.filter((l) => l.approval === undefined)).toEqual([
      expect.objectContaining({
        rule: 'gateway_rule',
        detail: 'rule "push-needs-a-person": denied by a person',
      }),
    ]);
  });

  it('past the call’s deadline, the failure mode answers: closed denies, no one approved in time', async () => {
    const answer = await gw.call('hasty', 'hook.before_tool', push);
    expect(answer.result).toEqual({
      action: 'deny_tool',
      reason: expect.stringMatching(/^hookgate: hook "hasty" failed: no one approved in time/),
    });
    expect(await gw.approvals.pending('acme')).toEqual([]);
    expect(await gw.metricsText()).toMatch(
      /hookgate_approvals_total\{tenant="acme",hook="hasty",decision="expired"\} 1/,
    );
  });

  it('a call no ask_human rule names goes to the hook as before', async () => {
    recorder().answer = () => ({ action: 'continue' });
    await gw.call('guard', 'hook.before_tool', { tool: 'exec', arguments: { command: 'git status' } });
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
  });

  it('a hook may answer ask_human itself: the call is held for a person the same way', async () => {
    recorder().answer = () => ({ action: 'ask_human', reason: 'this one needs a look' });
    const audits = gw.logs.audits().length;
    const call = gw.call('asker', 'hook.before_tool', push);
    const request = await parked();
    expect(request.display).toEqual({ args: push.arguments, reason: 'this one needs a look' });
    await gw.approvals.decide('acme', request.id, { approve: false, approver: 'bob' });
    expect((await call).result).toEqual({ action: 'deny_tool', reason: 'denied by bob' });
    expect(gw.logs.audits().slice(audits)).toContainEqual(
      expect.objectContaining({ rule: 'gateway_rule', detail: 'hook "asker": denied by a person' }),
    );
    const approve = gw.call('asker', 'hook.approve_tool', push);
    await gw.approvals.decide('acme', (await parked()).id, { approve: true, approver: 'alice' });
    expect((await approve).result).toEqual({ approved: true, reason: 'approved by alice' });
  });

  it('a host that goes away ends its held call at once, not at the deadline', async () => {
    const gone = new AbortController();
    const call = fetch(`${gw.url}/v1/tenants/acme/hooks/guard`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await gw.token()}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params: push }),
      signal: gone.signal,
    }).catch((err: Error) => err.name);
    const request = await parked();
    gone.abort();
    expect(await call).toBe('AbortError');
    // The guard hook's deadline is a minute: the request ends well before it, as abandoned.
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(0);
    await expect(
      gw.approvals.decide('acme', request.id, { approve: true, approver: 'alice' }),
    ).rejects.toMatchObject({
      code: 'EXPIRED',
    });
  });
});
