import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { REPO, SECRET } from '../helpers/gateway.js';

/**
 * Config reload on a real gateway process (`hookgate serve --config FILE`): SIGHUP and
 * POST /admin/reload re-read the same file. Hooks are real stdio processes that report their pid.
 */

const BIN = join(REPO, 'bin', 'hookgate.js');
const HOOK = join(REPO, 'test', 'helpers', 'misbehaving-hook.mjs');
const SECRET2 = 'second-secret-0123456789-abcdefghijklmnop';
const ADMIN = 'admin-token-0123456789-abcdefghijklmnopqrstuv';
// slow:5000 is still in flight when the reload it waits for comes (reached by an event, in ms).
const TOOLS = ['pid', 'ok', 'slow:5000'];

const stdio = (extra: Record<string, unknown> = {}) => ({
  backend: { type: 'stdio', command: [process.execPath, HOOK] },
  modes: ['tool'],
  tools: TOOLS,
  // Far above what any call here takes, slow:5000 included.
  timeout_ms: 30_000,
  ...extra,
});

function doc(hooks: Record<string, unknown>, opts: { k2?: boolean; port?: number } = {}) {
  return {
    // Unsandboxed: the test tells hook processes apart by their host pids (in the sandbox's own PID
    // namespace every hook is pid 2); test/node/sandbox/sandbox.test.ts covers restarts under the sandbox.
    server: {
      port: opts.port ?? 0,
      admin_token: 'env:HOOKGATE_ADMIN_TOKEN',
      log_level: 'info',
      sandbox: 'off',
    },
    tenants: {
      acme: {
        auth: {
          keys: [
            { kid: 'k1', alg: 'HS256', secret: 'env:K1' },
            ...(opts.k2 === false ? [] : [{ kid: 'k2', alg: 'HS256', secret: 'env:K2' }]),
          ],
        },
        hooks,
      },
    },
  };
}

async function token(kid: 'k1' | 'k2'): Promise<string> {
  return new SignJWT({ tenant: 'acme', hooks: ['*'] })
    .setProtectedHeader({ alg: 'HS256', kid })
    .setAudience('hookgate')
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(kid === 'k1' ? SECRET : SECRET2));
}

let dir: string;
let file: string;
let child: ChildProcess;
let url = '';
let out = '';
const logs = () =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

const write = (d: unknown) => writeFileSync(file, JSON.stringify(d));
const hookUrl = (hook: string) => `${url}/v1/tenants/acme/hooks/${hook}`;
let nextId = 1;

async function call(hook: string, tool: string, bearer?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(hookUrl(hook), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer ?? (await token('k1'))}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'hook.before_tool', params: { tool } }),
  });
  return { status: res.status, body: await res.json() };
}

/** hookgate_calls_in_flight of a hook with limits, from /metrics. */
async function inFlight(hook: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const text = await res.text();
  return Number(
    new RegExp(`hookgate_calls_in_flight\\{tenant="acme",hook="${hook}"\\} (\\d+)`).exec(text)?.[1],
  );
}

const pidOf = async (hook: string) => (await call(hook, 'pid')).body.result.result.for_llm as string;

async function waitFor<T>(f: () => T | Promise<T>, what: string, ms = 20_000): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function reloaded(count: number): Promise<void> {
  await expect
    .poll(() => logs().filter((l) => /^config reload/.test(l.msg)).length, { timeout: 20_000 })
    .toBeGreaterThanOrEqual(count);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-reload-'));
  file = join(dir, 'hookgate.json');
  // gone has a limit far above use for its in-flight gauge: it shows when calls have reached the hook.
  write(doc({ stay: stdio(), change: stdio(), gone: stdio({ limits: { max_in_flight: 100 } }) }));
  child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    cwd: REPO,
    env: { ...process.env, K1: SECRET, K2: SECRET2, HOOKGATE_ADMIN_TOKEN: ADMIN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (b) => {
    out += b;
  });
  child.stderr?.on('data', (b) => {
    out += b;
  });
  url = (await waitFor(() => logs().find((l) => l.msg === 'hookgate listening'), 'listening')).url;
  await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'ready');
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});

describe('config reload on a running gateway', () => {
  it('SIGHUP: adds, removes and changes hooks, and drops a removed key at once', async () => {
    const stayPid = await pidOf('stay');
    const changePid = await pidOf('change');
    // A token signed by k2, verified (and cached) before k2 is removed.
    const byK2 = await token('k2');
    expect((await call('stay', 'ok', byK2)).status).toBe(200);

    // An open WebSocket on the hook about to be removed, with a call in flight on it...
    const ws = new WebSocket(`${hookUrl('gone').replace('http', 'ws')}/ws`, {
      headers: { authorization: `Bearer ${await token('k1')}` },
    });
    const frames: any[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
    );
    await new Promise((r) => ws.once('open', r));
    ws.send(
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'hook.before_tool', params: { tool: 'slow:5000' } }),
    );
    // ...and an HTTP call in flight on it.
    const httpInFlight = call('gone', 'slow:5000');
    await waitFor(async () => (await inFlight('gone')) === 2, 'both calls in flight on the removed hook');

    write(doc({ stay: stdio(), change: stdio({ timeout_ms: 25_000 }), added: stdio() }, { k2: false }));
    child.kill('SIGHUP');
    await reloaded(1);
    const line = logs().find((l) => l.msg === 'config reloaded');
    expect(line).toMatchObject({
      hooks: {
        added: ['acme/added'],
        removed: ['acme/gone'],
        changed: ['acme/change'],
        unchanged: ['acme/stay'],
      },
      tenants: { auth_changed: ['acme'] },
    });

    // The calls already on their way to the removed hook are answered, then its socket closes.
    expect((await httpInFlight).body.result.result.for_llm).toBe('slept 5000');
    expect(await closed).toEqual({ code: 4004, reason: 'hook removed from the gateway config' });
    expect(frames).toEqual([
      { jsonrpc: '2.0', id: 7, result: { action: 'respond', result: { for_llm: 'slept 5000' } } },
    ]);
    expect((await call('gone', 'ok')).status).toBe(404);
    expect((await call('added', 'ok')).body.result.result.for_llm).toBe('ok ok');
    // The unchanged hook kept its process; the changed one got a new one.
    expect(await pidOf('stay')).toBe(stayPid);
    expect(await pidOf('change')).not.toBe(changePid);
    // The replaced process is stopped once its calls are answered (here: none were in flight).
    const alive = (pid: string) => {
      try {
        process.kill(Number(pid), 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor(() => !alive(changePid), 'the replaced hook process to exit');
    expect(alive(stayPid)).toBe(true);
    // The token signed by the removed key is refused, although it was cached.
    expect((await call('stay', 'ok', byK2)).status).toBe(401);
    expect((await call('stay', 'ok')).status).toBe(200);
    expect(out).not.toContain(ADMIN);
  }, 60_000);

  it('POST /admin/reload: admin token required; a bad config changes nothing and names the path', async () => {
    const reload = (bearer?: string) =>
      fetch(`${url}/admin/reload`, {
        method: 'POST',
        headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
      });
    const anon = await reload();
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await reload('not-the-admin-token-0123456789-abcdefghijkl')).status).toBe(401);

    const stayPid = await pidOf('stay');
    const addedPid = await pidOf('added');
    const bad = doc({ stay: stdio(), added: stdio(), broken: { backend: { type: 'stdio' } } }, { k2: false });
    (bad.tenants.acme.auth.keys[0] as { secret: string }).secret = 'env:NOT_SET_ANYWHERE';
    write(bad);
    const refused = await reload(ADMIN);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as any;
    expect(body.error.code).toBe('config_invalid');
    expect(body.issues.map((i: any) => i.path)).toEqual(
      expect.arrayContaining(['tenants.acme.hooks.broken.backend.command']),
    );
    // Nothing changed: the same hooks, the same processes, the same keys.
    expect(await pidOf('stay')).toBe(stayPid);
    expect(await pidOf('added')).toBe(addedPid);
    expect((await call('change', 'ok')).status).toBe(200);

    // A bad secret reference is reported with its path too (zod passed, compile did not).
    const badSecret = doc(
      { stay: stdio(), added: stdio(), change: stdio({ timeout_ms: 25_000 }) },
      { k2: false },
    );
    (badSecret.tenants.acme.auth.keys[0] as { secret: string }).secret = 'env:NOT_SET_ANYWHERE';
    write(badSecret);
    const refused2 = await reload(ADMIN);
    expect(refused2.status).toBe(400);
    expect(((await refused2.json()) as any).issues).toContainEqual({
      path: 'tenants.acme.auth.keys.0.secret',
      message: 'environment variable NOT_SET_ANYWHERE is not set',
    });
    // SIGHUP with the same bad file: logged with the path, nothing changes. The child's log reaches
    // this process later than its answers: wait for the two refusals above to be read first, or the
    // first one can be taken for the hangup's.
    const refusals = () => logs().filter((l) => l.msg === 'config reload refused; nothing changed');
    await expect.poll(() => refusals().length, { timeout: 20_000 }).toBe(2);
    const before = logs().length;
    child.kill('SIGHUP');
    await expect
      .poll(
        () =>
          logs()
            .slice(before)
            .find((l) => l.msg === 'config reload refused; nothing changed'),
        {
          timeout: 20_000,
        },
      )
      .toMatchObject({ paths: ['tenants.acme.auth.keys.0.secret'] });
    expect((await call('stay', 'ok')).status).toBe(200);

    // A good one: the removed hook is back; a changed port is reported, not ignored.
    write(
      doc(
        { stay: stdio(), change: stdio({ timeout_ms: 25_000 }), added: stdio(), gone: stdio() },
        { k2: false, port: 1 },
      ),
    );
    const ok = await reload(ADMIN);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      reloaded: true,
      hooks: { added: ['acme/gone'], removed: [], changed: [] },
      needs_restart: ['server.port'],
    });
    expect(await pidOf('stay')).toBe(stayPid);
    expect((await call('gone', 'ok')).body.result.result.for_llm).toBe('ok ok');
    expect(out).not.toContain(ADMIN);
  }, 60_000);
});
