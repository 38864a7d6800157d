/**
 * Approvals on Workers without the HOOKGATE_APPROVALS binding, as deployed: the Worker bundled by
 * wrangler (scripts/worker-dry-run.sh) and run by workerd through miniflare on 127.0.0.1 with
 * wrangler.toml's compatibility date and flags, every step an HTTP request of its own (an inbox
 * open in one tab, the host's call, the approver's click), meeting only in the isolate's memory
 * store. The parked call's promise is resolved, and the inbox streams are written, by the request
 * that decides or creates; workerd runs what follows in the request that made the promise
 * (handle_cross_request_promise_resolution, on from compatibility date 2024-10-14). With
 * no_handle_cross_request_promise_resolution both tests fail: the call never answers, the streams
 * hear nothing ('Cannot perform I/O on behalf of a different request'). That is why this is not a
 * test/worker test: @cloudflare/vitest-plugin runs its workers with that flag set.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// workerd offline: no request.cf download, no telemetry.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const WRANGLER_TOML = await readFile(join(REPO, 'wrangler.toml'), 'utf8');
const COMPATIBILITY_DATE = /^compatibility_date = "([0-9-]+)"/m.exec(WRANGLER_TOML)![1];
const COMPATIBILITY_FLAGS = JSON.parse(
  /^compatibility_flags = (\[.*\])/m.exec(WRANGLER_TOML)![1]!,
) as string[];
const KEY = 'approvals-e2e-hs256-key-0123456789-abcdefghij';
const ASK = { name: 'a-person-decides', tool: '*', action: 'ask_human', reason: 'every call needs a person' };
const CONFIG = {
  tenants: {
    acme: {
      auth: { audience: 'hookgate', keys: [{ kid: 'acme-1', alg: 'HS256', secret: 'env:ACME_KEY' }] },
      hooks: {
        guard: {
          backend: { type: 'module', module: 'examples/weather-hook.ts' },
          modes: ['tool'],
          on_failure: 'closed',
          rules: [ASK],
          timeout_ms: 60_000,
        },
      },
    },
  },
};

function sign(claims: Record<string, unknown>, subject: string): Promise<string> {
  return new SignJWT({ tenant: 'acme', ...claims })
    .setProtectedHeader({ alg: 'HS256', kid: 'acme-1', typ: 'JWT' })
    .setIssuedAt()
    .setAudience('hookgate')
    .setSubject(subject)
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(KEY));
}

describe('approvals in one Worker isolate’s memory, each step a request of its own', () => {
  let outdir: string;
  let mf: Miniflare;
  let origin: string;
  let approver: string;
  let hookToken: string;

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'hookgate-approvals-worker-'));
    await promisify(execFile)('bash', ['scripts/worker-dry-run.sh', outdir], { cwd: REPO });
    // index.js imports the /docs viewer's files by the names wrangler gave them (text modules).
    const modules: Record<string, { type: 'esm' | 'text'; contents: string }> = {};
    for (const name of await readdir(outdir)) {
      if (name === 'index.js')
        modules[name] = { type: 'esm', contents: await readFile(join(outdir, name), 'utf8') };
      else if (/swagger-ui/.test(name) && !name.endsWith('.map'))
        modules[name] = { type: 'text', contents: await readFile(join(outdir, name), 'utf8') };
    }
    mf = new Miniflare({
      host: '127.0.0.1',
      port: 0,
      cf: false,
      workers: [
        {
          config: {
            name: 'hookgate',
            compatibilityDate: COMPATIBILITY_DATE,
            compatibilityFlags: COMPATIBILITY_FLAGS,
            manifest: { mainModule: 'index.js', modules },
            // No HOOKGATE_APPROVALS: requests in the isolate's memory store.
            env: {
              HOOKGATE_CONFIG: { type: 'text', value: JSON.stringify(CONFIG) },
              ACME_KEY: { type: 'text', value: KEY },
            },
          },
        },
      ],
    });
    origin = (await mf.ready).origin;
    approver = await sign({ hooks: [], hookgate_role: 'approver' }, 'alice');
    hookToken = await sign({ hooks: ['*'] }, 'host');
  }, 120_000);

  afterAll(async () => {
    await mf?.dispose();
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });

  /** PicoClaw's before_tool, held until a person decides. */
  async function hostCall() {
    const res = await fetch(`${origin}/v1/tenants/acme/hooks/guard`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${hookToken}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'hook.before_tool',
        params: {
          meta: { AgentID: 'main', TurnID: 'turn-1', Iteration: 1 },
          context: { inbound: { channel: 'telegram', chat_id: '1' } },
          tool: 'exec',
          arguments: { command: 'git push origin main' },
        },
      }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: Record<string, unknown> }).result;
  }

  async function list() {
    const res = await fetch(`${origin}/v1/tenants/acme/approvals`, {
      headers: { authorization: `Bearer ${approver}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { approvals: { id: string }[] }).approvals;
  }

  async function decide(id: string, body: object) {
    const res = await fetch(`${origin}/v1/tenants/acme/approvals/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${approver}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** acme's live event stream, read as text. */
  async function inbox() {
    const res = await fetch(`${origin}/v1/tenants/acme/approvals/events`, {
      headers: { authorization: `Bearer ${approver}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    return {
      text: () => text,
      async until(what: string) {
        while (!text.includes(what)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended before "${what}"; it had: ${text}`);
          text += decoder.decode(value, { stream: true });
        }
      },
      cancel: () => reader.cancel(),
    };
  }

  const createdIds = (text: string) =>
    [...text.matchAll(/event: created\ndata: \{"id":"([0-9a-f-]{36})"/g)].map((m) => m[1]!);

  it('a parked call is woken by a decision made through another request', async () => {
    const call = hostCall();
    let id = '';
    await expect
      .poll(async () => {
        id = (await list())[0]?.id ?? '';
        return id;
      })
      .not.toBe('');
    expect((await decide(id, { decision: 'deny', reason: 'freeze' })).status).toBe(200);
    expect(await call).toEqual({ action: 'deny_tool', reason: 'denied by alice: freeze' });
    expect(await list()).toEqual([]);
  });

  it('inbox streams hear a call parked by another request and its decision by a third', async () => {
    const streams = [await inbox(), await inbox()];
    for (const s of streams) await s.until('event: ready');
    const call = hostCall();
    for (const s of streams) await s.until('event: created');
    const [id] = createdIds(streams[0]!.text());
    expect(createdIds(streams[1]!.text())).toEqual([id]);
    const decided = await decide(id!, { decision: 'approve', reason: 'release day' });
    expect(decided).toMatchObject({ status: 200, body: { decision: 'approved', approver: 'alice' } });
    for (const s of streams) await s.until(`"id":"${id}","decision":"approved"`);
    expect(await call).toEqual({ action: 'continue' });
    // Still live: the next call and its decision are heard too.
    const next = hostCall();
    await expect.poll(async () => (await list()).length).toBe(1);
    const [second] = await list();
    expect((await decide(second!.id, { decision: 'deny', reason: 'not now' })).status).toBe(200);
    for (const s of streams) await s.until(`"id":"${second!.id}","decision":"denied"`);
    expect(createdIds(streams[0]!.text())).toEqual([id, second!.id]);
    expect(await next).toEqual({ action: 'deny_tool', reason: 'denied by alice: not now' });
    for (const s of streams) await s.cancel();
  });
});
