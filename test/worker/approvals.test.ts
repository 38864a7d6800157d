import { env, exports } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY } from './fixtures.js';
import { ORIGIN, token } from './helpers.js';

const worker = exports.default;

/** An approver token of acme, signed with acme's key as `hookgate token --approver` signs one. */
function approver(): Promise<string> {
  return new SignJWT({ tenant: 'acme', hooks: [], hookgate_role: 'approver' })
    .setProtectedHeader({ alg: 'HS256', kid: 'acme-1', typ: 'JWT' })
    .setAudience('hookgate')
    .setSubject('alice')
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(ACME_KEY));
}

beforeAll(async () => {
  // Requests live in the tenant's Durable Object (wrangler.toml binds it); its first request
  // builds its module graph in this pool, seconds on a loaded machine: paid here, not in a test.
  const stub = env.HOOKGATE_APPROVALS.get(env.HOOKGATE_APPROVALS.idFromName('acme'));
  await stub.fetch('https://approvals.hookgate/op', {
    method: 'POST',
    body: JSON.stringify({ op: 'pending', tenant: 'acme', now: Date.now() }),
  });
}, 60_000);

describe('approvals in workerd', () => {
  it('serves the inbox page and its files under the same-origin CSP', async () => {
    const page = await worker.fetch(`${ORIGIN}/approvals`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(await page.text()).toContain('/approvals/assets/inbox.js');
    const js = await worker.fetch(`${ORIGIN}/approvals/assets/inbox.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await js.text()).toContain('sessionStorage');
  });

  it('lists for an approver, refuses a hook token, and opens the event stream', async () => {
    const auth = { authorization: `Bearer ${await approver()}` };
    const list = await worker.fetch(`${ORIGIN}/v1/tenants/acme/approvals`, { headers: auth });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ approvals: [] });

    const hook = await worker.fetch(`${ORIGIN}/v1/tenants/acme/approvals`, {
      headers: { authorization: `Bearer ${await token()}` },
    });
    expect(hook.status).toBe(403);

    const decide = await worker.fetch(`${ORIGIN}/v1/tenants/acme/approvals/${crypto.randomUUID()}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decide.status).toBe(404);

    const events = await worker.fetch(`${ORIGIN}/v1/tenants/acme/approvals/events`, { headers: auth });
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe('event: ready\ndata: {"tenant":"acme"}\n\n');
    await reader.cancel();
  });
});
