/**
 * WebSocket calls held for a person, and a peer that goes away: every call the socket carries is
 * asked under the connection's lifetime, so a request it left in the approvals inbox ends when the
 * socket does, not at the hook's deadline. A real gateway on 127.0.0.1, a real `ws` client; the
 * inbox is followed through its event stream, as the page does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { approverToken, PUSH_NEEDS_A_PERSON as PUSH, sseReader } from '../helpers/approvals.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        // Deadlines of a minute: a request that ends sooner ended because the socket went.
        guard: {
          ...rec,
          modes: ['tool', 'approve'],
          rules: [PUSH],
          on_failure: 'closed',
          timeout_ms: 60_000,
          approval_timeout_ms: 60_000,
        },
      }),
    },
  });
});
afterAll(() => gw?.close());

const push = { tool: 'exec', arguments: { command: 'git push origin main' } };

async function approverAuth() {
  return { authorization: `Bearer ${await approverToken(gw.config, 'acme')}` };
}

/** The tenant's approval events, read as the inbox reads them: `ready` first, then each change. */
async function followInbox() {
  const res = await fetch(`${gw.url}/v1/tenants/acme/approvals/events`, { headers: await approverAuth() });
  expect(res.status).toBe(200);
  const events = sseReader(res.body!);
  expect((await events.next()).event).toBe('ready');
  return events;
}

async function pendingIds(): Promise<string[]> {
  const res = await fetch(`${gw.url}/v1/tenants/acme/approvals`, { headers: await approverAuth() });
  return ((await res.json()) as { approvals: { id: string }[] }).approvals.map((a) => a.id);
}

async function connect(token?: string): Promise<WebSocket> {
  const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/guard/ws`, {
    headers: { authorization: `Bearer ${token ?? (await gw.token())}` },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return ws;
}

const frame = (id: number, method: string) => JSON.stringify({ jsonrpc: '2.0', id, method, params: push });

describe('WebSocket: a peer that goes away ends the calls it left held', () => {
  for (const [how, leave] of [
    ['closes the socket', (ws: WebSocket) => ws.close()],
    ['is cut off without a close frame', (ws: WebSocket) => ws.terminate()],
  ] as const) {
    it(`a peer that ${how}: both its held calls leave the inbox at once, expired as abandoned, audited`, async () => {
      const events = await followInbox();
      try {
        const ws = await connect();
        // Two calls on one socket (a before_tool and an approval), both held for a person.
        ws.send(frame(1, 'hook.before_tool'));
        ws.send(frame(2, 'hook.approve_tool'));
        const ids: string[] = [];
        for (const _ of [1, 2]) {
          const created = await events.next();
          expect(created).toMatchObject({
            event: 'created',
            data: { hook: 'guard', host: 'picoclaw', tool: 'exec' },
          });
          ids.push(created.data.id);
        }
        expect((await pendingIds()).sort()).toEqual([...ids].sort());

        leave(ws);
        // The hooks' deadlines are a minute away: these events come from the socket going.
        const decided = [await events.next(), await events.next()];
        expect(decided.map((e) => e.data.id).sort()).toEqual([...ids].sort());
        for (const e of decided) {
          expect(e).toMatchObject({
            event: 'decided',
            data: { decision: 'expired', reason: 'the call was abandoned' },
          });
        }
        expect(await pendingIds()).toEqual([]);
        for (const id of ids) {
          expect(gw.logs.audits()).toContainEqual(
            expect.objectContaining({
              event: 'approval expired',
              approval: id,
              reason: 'the call was abandoned',
            }),
          );
        }
        const late = await fetch(`${gw.url}/v1/tenants/acme/approvals/${ids[0]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(await approverAuth()) },
          body: JSON.stringify({ decision: 'approve' }),
        });
        expect(late.status).toBe(410);
      } finally {
        await events.cancel();
      }
    });
  }

  it('the gateway closing the socket (its token expired, 4001) ends the call held on it', async () => {
    const events = await followInbox();
    try {
      const ws = await connect(await gw.token({ ttlSeconds: 2 }));
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      ws.send(frame(1, 'hook.before_tool'));
      const id = (await events.next()).data.id as string;
      expect(await closed).toBe(4001);
      expect(await events.next()).toMatchObject({
        event: 'decided',
        data: { id, decision: 'expired', reason: 'the call was abandoned' },
      });
    } finally {
      await events.cancel();
    }
  });

  it('another socket’s held call is not ended when one peer leaves', async () => {
    const events = await followInbox();
    try {
      const stays = await connect();
      const leaves = await connect();
      stays.send(frame(1, 'hook.before_tool'));
      const kept = (await events.next()).data.id as string;
      leaves.send(frame(1, 'hook.before_tool'));
      const ended = (await events.next()).data.id as string;
      leaves.terminate();
      expect(await events.next()).toMatchObject({
        event: 'decided',
        data: { id: ended, decision: 'expired' },
      });
      expect(await pendingIds()).toEqual([kept]);
      // The one still connected gets its answer when a person decides.
      const answered = new Promise<any>((resolve) =>
        stays.once('message', (d) => resolve(JSON.parse(String(d)))),
      );
      await gw.approvals.decide('acme', kept, { approve: true, approver: 'alice' });
      expect(await answered).toMatchObject({ id: 1, result: { action: 'continue' } });
      stays.close();
    } finally {
      await events.cancel();
    }
  });
});
