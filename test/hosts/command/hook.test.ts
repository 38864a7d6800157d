import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exchange } from '../../helpers/command-host-fixtures.js';
import { REPO, startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { type RedirectServer, startRedirectServer } from '../../helpers/redirect-server.js';

/**
 * `hookgate hook --host codex|copilot|gemini` as the hosts run it: a real child process with the
 * captured stdin (compact JSON, no trailing newline), against a real gateway on 127.0.0.1 and
 * against real servers that misbehave (down, silent, garbage, an array, 500, 302).
 */
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const HOSTS = ['codex', 'copilot', 'gemini'] as const;
type Host = (typeof HOSTS)[number];
let gw: TestGateway;
let token: string;
let silent: Server;
const sockets: Socket[] = [];
let silentOrigin: string;
let odd: HttpServer;
let oddOrigin: string;
let redirect: RedirectServer;
let downOrigin: string;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({ guard: { ...rec, modes: ['tool'], grants: { rewrite_tools: ['Bash', 'bash'] } } }),
    },
  });
  token = await gw.token();
  silent = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentOrigin = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  // The hook name in the path says how this server misbehaves.
  odd = createHttpServer((req, res) => {
    req.resume();
    const how = /\/hooks\/([^/]+)\//.exec(req.url ?? '')?.[1];
    if (how === 'garbage') res.writeHead(200, { 'content-type': 'text/plain' }).end('allow');
    else if (how === 'array') res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    else res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
  });
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
  oddOrigin = `http://127.0.0.1:${(odd.address() as { port: number }).port}`;
  redirect = await startRedirectServer();
  // A port nothing listens on: a server started and closed.
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  downOrigin = `http://127.0.0.1:${(gone.address() as { port: number }).port}`;
  await new Promise<void>((r) => gone.close(() => r()));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  silent?.close();
  odd?.closeAllConnections();
  odd?.close();
  await redirect?.close();
  await gw?.close();
});
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

function shim(args: string[], stdin: string | null, env: Record<string, string | undefined> = {}) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'src/node/cli/bin.ts'), 'hook', ...args],
    {
      cwd: REPO,
      env: { ...process.env, HOOKGATE_TOKEN: token, ...env },
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => {
    out += b;
  });
  child.stderr.on('data', (b) => {
    err += b;
  });
  // null: the host never closes stdin.
  if (stdin === null) child.stdin.write('{"hook_event_name":');
  else child.stdin.end(stdin);
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const url = (origin: string, hook = 'guard') => `${origin}/v1/tenants/acme/hooks/${hook}`;
const stdinOf = (host: Host) => exchange(host, '01').stdin;

/** What each host takes as a block with a reason the model reads (see the captures). */
function expectBlocked(host: Host, r: { code: number | null; out: string; err: string }, why: RegExp) {
  if (host === 'copilot') {
    expect(r.code).toBe(0);
    const deny = JSON.parse(r.out);
    expect(deny.permissionDecision).toBe('deny');
    expect(deny.permissionDecisionReason).toMatch(why);
  } else {
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(why);
  }
}

describe.each(HOSTS)('hookgate hook --host %s', (host) => {
  it('a deny from the gateway is printed as the host takes it', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'not today' });
    const r = await shim(['--host', host, '--url', url(gw.url)], stdinOf(host));
    expect(r.code).toBe(0);
    expect(JSON.stringify(JSON.parse(r.out))).toContain('not today');
    expect(recorder().calls).toHaveLength(1);
  });

  it('no objection prints nothing and exits 0', async () => {
    const r = await shim(['--host', host, '--url', url(gw.url), '--fail-closed'], stdinOf(host));
    expect(r).toEqual({ code: 0, out: '', err: '' });
  });

  const failures: [string, () => string, RegExp, string[]][] = [
    ['gateway down', () => url(downOrigin), /ECONNREFUSED/, []],
    [
      'gateway silent past the deadline',
      () => url(silentOrigin),
      /no answer within 1500 ms/,
      ['--timeout-ms', '1500'],
    ],
    ['200 with garbage', () => url(oddOrigin, 'garbage'), /not JSON/, []],
    ['200 with a JSON array', () => url(oddOrigin, 'array'), /not a JSON object/, []],
    ['HTTP 500', () => url(oddOrigin, 'boom'), /HTTP 500: boom/, []],
    ['a 302 to an allow', () => url(redirect.url), /302: a redirect, not followed/, []],
  ];
  for (const [what, target, why, extra] of failures) {
    it(`fail-closed: ${what} blocks with the reason`, async () => {
      const r = await shim(['--host', host, '--url', target(), '--fail-closed', ...extra], stdinOf(host));
      expectBlocked(host, r, why);
      expect(redirect.allowed).toBe(0);
    });
  }

  it('fail-closed: a token the gateway refuses blocks', async () => {
    const r = await shim(['--host', host, '--url', url(gw.url), '--fail-closed'], stdinOf(host), {
      HOOKGATE_TOKEN: 'not-a-jwt',
    });
    expectBlocked(host, r, /HTTP 401/);
    expect(recorder().calls).toEqual([]);
  });

  it('fail-closed: no token blocks', async () => {
    const r = await shim(['--host', host, '--url', url(gw.url), '--fail-closed'], stdinOf(host), {
      HOOKGATE_TOKEN: undefined,
    });
    expectBlocked(host, r, /HOOKGATE_TOKEN is not set/);
  });

  it('fail-closed: stdin never closed ends at the deadline, blocked', async () => {
    const r = await shim(
      ['--host', host, '--url', url(gw.url), '--fail-closed', '--timeout-ms', '1000'],
      null,
    );
    expectBlocked(host, r, /no answer within 1000 ms/);
  });

  it('fail-open: gateway down prints nothing and exits 0 (the host runs the tool)', async () => {
    const r = await shim(['--host', host, '--url', url(downOrigin)], stdinOf(host));
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/failing open/);
  });
});

describe('hookgate hook --host claude-code-command (a Claude Code command hook, on the Claude Code route)', () => {
  const stdin = JSON.stringify({
    session_id: 's1',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_use_id: 'toolu_1',
  });

  it("prints the Claude Code route's deny", async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'not today' });
    const r = await shim(['--host', 'claude-code-command', '--url', url(gw.url)], stdin);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'not today',
      },
    });
  });

  it('fail-closed: the gateway down exits 2 with the reason on stderr (what Claude Code shows the model)', async () => {
    const r = await shim(['--host', 'claude-code-command', '--url', url(downOrigin), '--fail-closed'], stdin);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/ECONNREFUSED/);
  });
});

describe('hookgate hook: what it refuses', () => {
  it('Copilot postToolUse, fail-closed: nothing left to block, so no deny is printed', async () => {
    const r = await shim(
      ['--host', 'copilot', '--url', url(downOrigin), '--fail-closed'],
      exchange('copilot', '10', 2).stdin,
    );
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
  });

  it.each([
    [
      ['--host', 'codex', '--url', 'http://127.0.0.1:1/v1/tenants/a/hooks/h', '--token', 'x'],
      /--token is not accepted/,
    ],
    [
      ['--host', 'cursor', '--url', 'http://127.0.0.1:1/v1/tenants/a/hooks/h'],
      /--host must be one of: codex, copilot, gemini/,
    ],
    [
      ['--host', 'codex', '--url', 'http://127.0.0.1:1/v1/tenants/a/hooks/h?token=x'],
      /must not carry a token/,
    ],
    [['--host', 'codex', '--url', 'http://127.0.0.1:1/elsewhere'], /must be a hook's URL/],
    [
      ['--host', 'copilot', '--url', 'http://127.0.0.1:1/v1/tenants/a/hooks/h', '--timeout-ms', '600001'],
      /between 1 and 600000/,
    ],
  ])('%j → exit 2 with the reason (which these hosts also read as a block)', async (args, why) => {
    const r = await shim(args, '{}');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(why);
  });
});
