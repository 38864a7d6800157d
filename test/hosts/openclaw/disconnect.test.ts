/**
 * The OpenClaw route, a call held for a person, and a plugin that gives up: the hookgate plugin
 * cuts its request at its own timeout (under OpenClaw's 15 s hook budget), and the request it
 * left in the approvals inbox must end then, not linger as pending until the hook's deadline.
 * A real gateway on 127.0.0.1; the inbox is followed through its event stream, as the page does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approverToken, PUSH_NEEDS_A_PERSON as PUSH, sseReader } from '../../helpers/approvals.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { loadOcFixtures } from '../../helpers/openclaw-fixtures.js';

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        // A deadline of a minute: a request that ends sooner ended because the plugin went away.
        guard: { ...rec, modes: ['tool'], rules: [PUSH], on_failure: 'closed', timeout_ms: 60_000 },
      }),
    },
  });
});
afterAll(() => gw?.close());

/** The plugin's before_tool_call for `git push`, as real OpenClaw 2026.9.6 had it posted. */
function pushCall(): Record<string, any> {
  const { exchanges } = loadOcFixtures();
  const body = structuredClone(
    exchanges.find((x) => x.file.startsWith('01') && x.event === 'before_tool_call')!.body,
  );
  body.event.params = { command: 'git push origin main' };
  return body;
}

/** The tenant's approval events, read as the inbox reads them: `ready` first, then each change. */
async function followInbox() {
  const res = await fetch(`${gw.url}/v1/tenants/acme/approvals/events`, {
    headers: { authorization: `Bearer ${await approverToken(gw.config, 'acme')}` },
  });
  expect(res.status).toBe(200);
  const events = sseReader(res.body!);
  expect((await events.next()).event).toBe('ready');
  return events;
}

async function pendingIds(): Promise<string[]> {
  const res = await fetch(`${gw.url}/v1/tenants/acme/approvals`, {
    headers: { authorization: `Bearer ${await approverToken(gw.config, 'acme')}` },
  });
  return ((await res.json()) as { approvals: { id: string }[] }).approvals.map((a) => a.id);
}

describe('OpenClaw: a plugin that goes away ends its held call', () => {
  it('the request leaves the inbox at once, expired as abandoned, audited; a late approval is refused', async () => {
    const events = await followInbox();
    try {
      const gone = new AbortController();
      const call = fetch(`${gw.url}/v1/tenants/acme/hooks/guard/openclaw`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await gw.token()}` },
        body: JSON.stringify(pushCall()),
        signal: gone.signal,
      }).catch((err: Error) => err.name);

      const created = await events.next();
      expect(created).toMatchObject({
        event: 'created',
        data: { hook: 'guard', host: 'openclaw', tool: 'exec', reason: 'a push leaves the machine' },
      });
      const id: string = created.data.id;
      expect(await pendingIds()).toEqual([id]);

      gone.abort();
      expect(await call).toBe('AbortError');
      // The hook's deadline is a minute away: this event comes from the disconnect.
      expect(await events.next()).toEqual({
        event: 'decided',
        data: expect.objectContaining({ id, decision: 'expired', reason: 'the call was abandoned' }),
      });
      expect(await pendingIds()).toEqual([]);
      expect(gw.logs.audits()).toContainEqual(
        expect.objectContaining({
          event: 'approval expired',
          approval: id,
          reason: 'the call was abandoned',
        }),
      );
      const late = await fetch(`${gw.url}/v1/tenants/acme/approvals/${id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${await approverToken(gw.config, 'acme')}`,
        },
        body: JSON.stringify({ decision: 'approve' }),
      });
      expect(late.status).toBe(410);
    } finally {
      await events.cancel();
    }
  });
});
