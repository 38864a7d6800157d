import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { REPO, startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { postTool, preTool } from '../../helpers/hermes-payloads.js';
import { recorder } from '../../helpers/recording-hook.js';
import { startRedirectServer } from '../../helpers/redirect-server.js';

/**
 * `hookgate hermes-hook` as Hermes runs it: a real child process with Hermes's JSON on stdin,
 * against a real gateway on 127.0.0.1.
 */
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const down = {
  backend: {
    type: 'http',
    url: 'http://127.0.0.1:9/hook',
    secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`,
  },
};
let gw: TestGateway;
let token: string;
/** Accepts connections and never answers: a gateway that hangs. */
let silent: Server;
let silentUrl: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        guard: { ...rec, modes: ['tool'], grants: { rewrite_tools: ['terminal'] } },
        closed: { ...down, modes: ['tool'], on_failure: 'closed' },
      }),
    },
  });
  token = await gw.token();
  silent = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const addr = silent.address() as { port: number };
  silentUrl = `http://127.0.0.1:${addr.port}/v1/tenants/acme/hooks/guard`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  silent?.close();
  await gw?.close();
});
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

const hookUrl = (hook: string) => `${gw.url}/v1/tenants/acme/hooks/${hook}`;

function hermesHook(args: string[], stdin: string, env: Record<string, string | undefined> = {}) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'src/node/cli/bin.ts'), 'hermes-hook', ...args],
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
  child.stdin.end(stdin);
  return new Promise<{ code: number | null; out: string; err: string; ms: number }>((resolve) => {
    child.on('close', (code) => resolve({ code, out, err, ms: performance.now() - started }));
  });
}

const payload = JSON.stringify(preTool());

describe('hookgate hermes-hook', () => {
  it('deny_tool → prints the block, exit 0', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no shell' });
    const r = await hermesHook(['--url', hookUrl('guard')], payload);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(r.out)).toEqual({ action: 'block', message: 'no shell' });
    expect(recorder().calls[0]).toMatchObject({ method: 'hook.before_tool', params: { tool: 'terminal' } });
  });

  it('a granted rewrite → prints modify with the complete args (the …/hermes URL works too)', async () => {
    recorder().answer = (_m: string, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'ls -a' } },
    });
    const r = await hermesHook(['--url', `${hookUrl('guard')}/hermes`], payload);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ action: 'modify', args: { command: 'ls -a' } });
  });

  it('--no-modify: a granted rewrite blocks instead (for Hermes without modify); a deny still blocks', async () => {
    recorder().answer = (_m: string, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'ls -a' } },
    });
    const r = await hermesHook(['--url', hookUrl('guard'), '--no-modify'], payload);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ action: 'block' });
    expect(JSON.parse(r.out).message).toContain('cannot apply a rewrite');
  });

  it('no decision → prints nothing, exit 0', async () => {
    const r = await hermesHook(['--url', hookUrl('guard')], payload);
    expect(r).toMatchObject({ code: 0, out: '', err: '' });
  });

  it('a hook that is down and fails closed is answered by the gateway: block, exit 0', async () => {
    const r = await hermesHook(['--url', hookUrl('closed')], payload);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ action: 'block' });
  });

  describe('gateway failures', () => {
    let unreachable: string;
    beforeAll(async () => {
      // A port nothing listens on (fetch refuses some low ports outright, which is not "down").
      const s = createServer();
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      const { port } = s.address() as { port: number };
      await new Promise((r) => s.close(r));
      unreachable = `http://127.0.0.1:${port}/v1/tenants/acme/hooks/guard`;
    });

    it('fail-open (default): nothing on stdout, exit 0, the reason on stderr', async () => {
      const r = await hermesHook(['--url', unreachable], payload);
      expect(r).toMatchObject({ code: 0, out: '' });
      expect(r.err).toContain('failing open');
      expect(r.err).toContain('ECONNREFUSED');
    });

    it('--fail-closed: exit 2, the block on stdout and the reason on stderr', async () => {
      const r = await hermesHook(['--url', unreachable, '--fail-closed'], payload);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.out)).toMatchObject({ action: 'block' });
      expect(JSON.parse(r.out).message).toContain('hookgate: gateway failed');
      expect(r.err).toContain('hookgate: gateway failed');
    });

    it('a bad token is a failure: fail-closed blocks naming the HTTP status', async () => {
      const r = await hermesHook(['--url', hookUrl('guard'), '--fail-closed'], payload, {
        HOOKGATE_TOKEN: 'nope',
      });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.out).message).toContain('HTTP 401');
      expect(recorder().calls).toEqual([]);
    });

    it('a missing token is a failure too, not a usage error', async () => {
      const closed = await hermesHook(['--url', hookUrl('guard'), '--fail-closed'], payload, {
        HOOKGATE_TOKEN: undefined,
      });
      expect(closed.code).toBe(2);
      expect(closed.err).toContain('HOOKGATE_TOKEN is not set');
      const open = await hermesHook(['--url', hookUrl('guard')], payload, { HOOKGATE_TOKEN: '' });
      expect(open).toMatchObject({ code: 0, out: '' });
    });

    it('a gateway that never answers: ends at --timeout-ms, never hangs', async () => {
      const r = await hermesHook(['--url', silentUrl, '--fail-closed', '--timeout-ms', '300'], payload);
      expect(r.code).toBe(2);
      // Its own 300 ms deadline ended it (the message says which), not a kill or an exit of the gateway.
      expect(r.err).toContain('no answer within 300 ms');
      // Process start (tsx, seconds on a loaded machine) plus the deadline; a hang meets the test timeout.
      expect(r.ms).toBeLessThan(30_000);
    }, 60_000);

    it('fail-closed on another event: exit 2 but no block on stdout (only pre_tool_call reads one)', async () => {
      const r = await hermesHook(['--url', unreachable, '--fail-closed'], JSON.stringify(postTool()));
      expect(r).toMatchObject({ code: 2, out: '' });
    });

    it('a redirect is a failure, never followed to an answer: fail-closed blocks naming it', async () => {
      const redirect = await startRedirectServer();
      try {
        const url = `${redirect.url}/v1/tenants/acme/hooks/guard`;
        const closed = await hermesHook(['--url', url, '--fail-closed'], payload);
        expect(closed.code).toBe(2);
        expect(JSON.parse(closed.out)).toMatchObject({ action: 'block' });
        expect(closed.err).toContain('redirect');
        const open = await hermesHook(['--url', url], payload);
        expect(open).toMatchObject({ code: 0, out: '' });
        expect(open.err).toContain('failing open');
        expect(redirect.allowed).toBe(0);
      } finally {
        await redirect.close();
      }
    });

    it('a body the gateway refuses (400) is a failure', async () => {
      const r = await hermesHook(
        ['--url', hookUrl('guard'), '--fail-closed'],
        '{"hook_event_name":"pre_tool_call"}',
      );
      expect(r.code).toBe(2);
      expect(JSON.parse(r.out).message).toContain('HTTP 400');
    });
  });

  it.each([
    [['--url', 'ftp://x/v1/tenants/a/hooks/b'], 'must start with http'],
    [['--url', 'http://127.0.0.1:1/other'], "must be a hook's URL"],
    [['--url', 'http://127.0.0.1:1/v1/tenants/a/hooks/b?token=x'], 'must not carry a token'],
    [['--url', 'http://127.0.0.1:1/v1/tenants/a/hooks/b', '--token', 'x'], '--token is not accepted'],
    [['--url', 'http://127.0.0.1:1/v1/tenants/a/hooks/b', '--timeout-ms', '0'], '--timeout-ms must be'],
  ])('refuses %j as a usage error', async (args, message) => {
    // In this process: the flags are checked before stdin is read or anything is sent.
    const { code, out, err } = await runCli(['hermes-hook', ...args], {
      env: { HOOKGATE_TOKEN: token },
      cwd: REPO,
    });
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(out).toBe('');
  });
});
