import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadTranscript,
  matchingReply,
  transcriptFiles,
  trustedTranscriptHook,
} from '../helpers/fixtures.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { hostEffect, type Reply } from '../helpers/picoclaw-host.js';

const ADMIN = 'replay-admin-token-0123456789-abcdefghijklm';
process.env.HOOKGATE_REPLAY_ADMIN = ADMIN;

function replyOf(body: any): Reply {
  if ('error' in body) return { error: body.error };
  return { result: body.result };
}

/** The transcript's hook answers hello with an error (it never becomes ready). */
function helloFails(t: ReturnType<typeof loadTranscript>): boolean {
  return t.lines.some((l) => l.dir === 'hook->host' && l.msg?.id === 1 && 'error' in l.msg);
}

describe.each(transcriptFiles())('replaying %s through the gateway', (file) => {
  const t = loadTranscript(file);
  const hookName = t.hello.params.name as string;
  let gw: TestGateway;

  beforeAll(async () => {
    // A hook whose hello fails never becomes ready; its transcript expects exactly that.
    gw = await startTestGateway(
      { tenants: { acme: tenantDoc({ [hookName]: trustedTranscriptHook(t) }) } },
      { waitForHooks: !helloFails(t) },
    );
  }, 90_000);
  afterAll(() => gw?.close());

  it('gives the host the effect the transcript expects, for every call', async () => {
    const helloFailed = helloFails(t);
    for (const ex of t.exchanges) {
      const body = await gw.call(hookName, ex.request.method, ex.request.params);
      expect(body.jsonrpc).toBe('2.0');
      expect(body.result, `${ex.request.method} must get a result PicoClaw can use`).toBeTypeOf('object');
      const expected = helloFailed ? undefined : matchingReply(ex);
      const want = hostEffect(ex.request.method, ex.request.params, expected ? replyOf(expected) : undefined);
      const got = hostEffect(ex.request.method, ex.request.params, replyOf(body));
      expect(got, `${file} ${ex.request.method}`).toEqual(want);
      if (ex.request.method === 'hook.approve_tool') {
        expect(typeof body.result.approved).toBe('boolean');
      }
    }
  });

  it('accepts runtime events as notifications (202, no body)', async () => {
    const token = await gw.token();
    for (const n of t.notifications) {
      const res = await gw.post('acme', hookName, n, token);
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
    }
  });

  it('answers hook.hello itself with the granted modes', async () => {
    const body = await gw.call(hookName, 'hook.hello', t.hello.params);
    expect(body.result).toMatchObject({ ok: true, name: hookName, version: 1, modes: t.hello.params.modes });
  });
});

describe('a hook whose hello fails (03-handshake-error)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    const t = loadTranscript('03-handshake-error.jsonl');
    gw = await startTestGateway(
      {
        server: { admin_token: 'env:HOOKGATE_REPLAY_ADMIN' },
        tenants: { acme: tenantDoc({ h: { ...trustedTranscriptHook(t), on_failure: 'closed' } }) },
      },
      { waitForHooks: false },
    );
  });
  afterAll(() => gw?.close());

  it('is reported not ready and its calls get the failure answer, not a hang', async () => {
    const ready = await fetch(`${gw.url}/readyz`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).not_ready).toEqual(['acme/h']);
    const body = await gw.call('h', 'hook.before_tool', { tool: 'exec', arguments: { command: 'ls' } });
    expect(body.result).toMatchObject({ action: 'deny_tool' });
    expect(body.result.reason).toMatch(/failed/);
  });
});
