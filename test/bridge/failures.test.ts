import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CloseCode } from '../../src/lib/close-codes.js';
import { type GatewayHandler, TestGateway } from './helpers/gateway.js';
import { beforeToolParams, eventually, sleep, TestHost, TOKEN } from './helpers/host.js';

/**
 * The gateway failing in every way the bridge must survive, with PicoClaw's rules kept: each call
 * answered by its deadline (sooner when the connection is known to be gone), approvals denied
 * explicitly, interceptors answered by --on-failure, the token never in a log line.
 */

const hosts: TestHost[] = [];
const gateways: TestGateway[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const h of hosts.splice(0)) h.kill();
  for (const g of gateways.splice(0)) await g.kill();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function host(args: string[], env?: Record<string, string | undefined>): TestHost {
  const h = new TestHost(args, env);
  hosts.push(h);
  return h;
}

async function gateway(handler: GatewayHandler, opts: { websocket?: boolean } = {}): Promise<TestGateway> {
  const g = await TestGateway.start({ token: TOKEN, handler, ...opts });
  gateways.push(g);
  return g;
}

const approveParams = { meta: { AgentID: 'main' }, tool: 'exec', arguments: { command: 'ls' } };
const DENIED = { approved: false, reason: expect.stringMatching(/^hookgate: /) };

/** The codes the bridge logged answering these calls by the failure mode (stderr can trail stdout). */
async function failureCodes(h: TestHost, ids: number[]): Promise<string[]> {
  const codeOf = (id: number) =>
    h.logs().find((l) => l.msg === 'answered by failure mode' && l.id === id)?.code as string | undefined;
  await eventually(() => ids.every((id) => codeOf(id) !== undefined), 15_000, `failure logs of ${ids}`);
  return ids.map((id) => codeOf(id)!);
}

describe('gateway killed mid-call', () => {
  it('answers pending calls at once by the failure mode, then reconnects and succeeds', async () => {
    let up = false;
    const gw = await gateway((req) => {
      if (!up) return { hang: true };
      if (req.method === 'hook.approve_tool') return { result: { approved: true } };
      return { result: { action: 'deny_tool', reason: 'from the gateway' } };
    });
    // Deadlines far away: an answer in a few seconds can only come from noticing the drop.
    const h = host([
      '--url',
      gw.wsUrl,
      '--transport',
      'ws',
      '--on-failure',
      'closed',
      '--timeout-ms',
      '10000',
      '--approval-timeout-ms',
      '30000',
    ]);
    h.hello();
    await h.answer(1);
    const tool = h.request('hook.before_tool', beforeToolParams('exec'));
    const approve = h.request('hook.approve_tool', approveParams);
    await eventually(() => gw.calls.length === 2, 15_000, 'both calls at the gateway');

    await gw.kill();
    const [a, b] = await Promise.all([h.answer(tool), h.answer(approve)]);
    // Answered for the drop, not by a deadline (the bridge logs which it was).
    expect(await failureCodes(h, [tool, approve])).toEqual(['UPSTREAM_CLOSED', 'UPSTREAM_CLOSED']);
    expect(a.result).toEqual({
      action: 'deny_tool',
      reason: expect.stringMatching(/^hookgate: .*connection/),
    });
    expect(b.result).toEqual(DENIED);

    up = true;
    await gw.restart();
    let answer: unknown;
    for (let i = 0; i < 60 && (answer as any)?.reason !== 'from the gateway'; i++) {
      answer = (await h.call('hook.before_tool', beforeToolParams('exec'))).result;
      if ((answer as any)?.reason !== 'from the gateway') await sleep(250);
    }
    expect(answer).toEqual({ action: 'deny_tool', reason: 'from the gateway' });
    expect((await h.call('hook.approve_tool', approveParams)).result).toEqual({ approved: true });
    expect(gw.connections).toBeGreaterThanOrEqual(2);
    expect(h.stderr).not.toContain(TOKEN);
  }, 60_000);

  it('treats a 4001 "token expired" close as a refusal and says so', async () => {
    const gw = await gateway(() => ({ hang: true }));
    const h = host([
      '--url',
      gw.wsUrl,
      '--transport',
      'ws',
      '--timeout-ms',
      '10000',
      '--approval-timeout-ms',
      '30000',
    ]);
    h.hello();
    await h.answer(1);
    const tool = h.request('hook.before_tool', beforeToolParams('read_file'));
    const approve = h.request('hook.approve_tool', approveParams);
    await eventually(() => gw.calls.length === 2, 15_000, 'both calls at the gateway');
    gw.token = 'another-token-entirely';
    gw.closeAll(CloseCode.TokenExpired, 'token expired');
    expect((await h.answer(tool)).result).toEqual({ action: 'continue' });
    expect((await h.answer(approve)).result).toEqual(DENIED);
    expect(await failureCodes(h, [tool, approve])).toEqual(['UPSTREAM_CLOSED', 'UPSTREAM_CLOSED']);
    await h.waitForStderr(/token expired/);
    // The next attempt is refused with 401; calls meanwhile fail at once, not at their deadline.
    await h.waitForStderr(/401/);
    const refused = h.request('hook.approve_tool', approveParams);
    expect((await h.answer(refused)).result).toEqual(DENIED);
    // Refused for the token (the approval's own deadline is 30 s away).
    expect(await failureCodes(h, [refused])).toEqual(['UPSTREAM_AUTH']);
    expect(h.stderr).not.toContain(TOKEN);
  }, 60_000);
});

describe('a slow-consumer close (1013)', () => {
  it('is reconnected with the same token, not taken for a refused one (--transport ws)', async () => {
    let closed = false;
    const gw = await gateway((req) => {
      if (!closed) {
        closed = true;
        return { close: { code: CloseCode.TryAgainLater, reason: 'slow consumer' } };
      }
      return { result: { action: 'deny_tool', reason: `gateway saw ${(req.params as any).tool}` } };
    });
    const h = host(['--url', gw.wsUrl, '--transport', 'ws', '--timeout-ms', '10000']);
    h.hello();
    await h.answer(1);
    // The call the socket was closed under gets the failure answer at once (not at its 10 s deadline).
    const under = h.request('hook.before_tool', beforeToolParams('exec'));
    expect((await h.answer(under)).result).toEqual({ action: 'continue' });
    expect(await failureCodes(h, [under])).toEqual(['UPSTREAM_CLOSED']);
    await h.waitForStderr(/1013 slow consumer/);
    let answer: any;
    for (let i = 0; i < 40 && answer?.reason !== 'gateway saw exec'; i++) {
      answer = (await h.call('hook.before_tool', beforeToolParams('exec'))).result;
      if (answer?.reason !== 'gateway saw exec') await sleep(100);
    }
    expect(answer).toEqual({ action: 'deny_tool', reason: 'gateway saw exec' });
    expect(gw.connections).toBeGreaterThanOrEqual(2);
    expect(gw.authHeaders.every((x) => x === `Bearer ${TOKEN}`)).toBe(true);
    expect(h.stderr).not.toMatch(/HOOKGATE_TOKEN|token is no longer accepted/);
  }, 60_000);

  it('--transport auto carries calls over HTTP while the WebSocket is down', async () => {
    const gw = await gateway((req) => {
      if (req.via === 'ws') {
        // Closed as a slow consumer, and busy for new WebSockets for a while.
        gw.refuseUpgrades = 503;
        return { close: { code: CloseCode.TryAgainLater, reason: 'slow consumer' } };
      }
      return { result: { action: 'deny_tool', reason: `over http: ${(req.params as any).tool}` } };
    });
    const h = host(['--url', gw.wsUrl, '--timeout-ms', '5000']);
    h.hello();
    await h.answer(1);
    await eventually(() => gw.connections === 1, 30_000, 'the WebSocket');
    await h.call('hook.before_tool', beforeToolParams('exec'), 10_000);
    await h.waitForStderr(/1013 slow consumer/);
    expect((await h.call('hook.before_tool', beforeToolParams('read_file'))).result).toEqual({
      action: 'deny_tool',
      reason: 'over http: read_file',
    });
    expect(gw.calls.at(-1)?.via).toBe('http');
    expect(h.stderr).not.toMatch(/token is no longer accepted/);
  }, 60_000);
});

describe('gateway unreachable', () => {
  it('answers hello at once while the connection hangs, and each call by its deadline', async () => {
    // Accepts TCP and never answers the upgrade: the worst kind of unreachable.
    const sockets: Socket[] = [];
    const blackhole = createServer((s) => sockets.push(s));
    servers.push(blackhole);
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
    const port = (blackhole.address() as AddressInfo).port;
    const h = host([
      '--url',
      `ws://127.0.0.1:${port}/v1/tenants/acme/hooks/weather/ws`,
      '--timeout-ms',
      '600',
      '--approval-timeout-ms',
      '900',
    ]);
    await h.ready();
    expect((await h.answer(h.hello())).result).toEqual({ ok: true, name: 'hook-adapter' });
    const tool = h.request('hook.before_tool', beforeToolParams('exec'));
    const llm = h.request('hook.before_llm', { meta: {}, model: 'gpt' });
    const approve = h.request('hook.approve_tool', approveParams);
    expect((await h.answer(tool)).result).toEqual({ action: 'continue' });
    expect((await h.answer(llm)).result).toEqual({ action: 'continue' });
    expect((await h.answer(approve)).result).toEqual(DENIED);
    expect(await failureCodes(h, [tool, llm, approve])).toEqual([
      'UPSTREAM_TIMEOUT',
      'UPSTREAM_TIMEOUT',
      'UPSTREAM_TIMEOUT',
    ]);
    for (const s of sockets) s.destroy();
  }, 30_000);

  it('fails calls at once when the gateway refuses connections', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const url = `ws://127.0.0.1:${port}/v1/tenants/acme/hooks/weather/ws`;
    const h = host(['--url', url, '--transport', 'ws', '--on-failure', 'closed', '--timeout-ms', '20000']);
    await h.ready();
    expect((await h.answer(h.hello())).result).toEqual({ ok: true, name: 'hook-adapter' });
    const call = h.request('hook.after_tool', { meta: {}, tool: 'exec' });
    expect((await h.answer(call)).result).toEqual({
      action: 'abort_turn',
      reason: expect.stringMatching(/^hookgate: .*(ECONNREFUSED|unreachable)/),
    });
    // At once: refused, not left to its 20 s deadline.
    expect(await failureCodes(h, [call])).toEqual(['UPSTREAM_UNAVAILABLE']);
    await h.waitForStderr(/cannot connect to the gateway/);
  }, 30_000);
});

describe('wrong token', () => {
  it.each(['ws', 'http', 'auto'])(
    'answers by failure mode and says why on stderr (%s)',
    async (transport) => {
      const gw = await gateway(() => ({ result: { action: 'deny_tool', reason: 'should not be reached' } }));
      const wrong = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3cm9uZyJ9.d3Jvbmctc2lnbmF0dXJlLXNlY3JldA';
      const h = host(
        [
          '--url',
          gw.wsUrl,
          '--transport',
          transport,
          '--timeout-ms',
          '20000',
          '--approval-timeout-ms',
          '20000',
        ],
        { HOOKGATE_TOKEN: wrong },
      );
      await h.answer(h.hello());
      const ids = [
        h.request('hook.before_tool', beforeToolParams('exec')),
        h.request('hook.approve_tool', approveParams),
      ];
      const [a, b] = await Promise.all(ids.map((id) => h.answer(id)));
      // Refused for the token, not left to the 20 s deadlines.
      expect(await failureCodes(h, ids)).toEqual(['UPSTREAM_AUTH', 'UPSTREAM_AUTH']);
      expect(a.result).toEqual({ action: 'continue' });
      expect(b.result).toEqual(DENIED);
      await h.waitForStderr(/401[^\n]*token signature invalid/);
      expect(gw.calls).toHaveLength(0);
      expect(gw.authHeaders.length).toBeGreaterThan(0);
      expect(gw.authHeaders.every((x) => x === `Bearer ${wrong}`)).toBe(true);
      expect(gw.urls.every((u) => !u.includes(wrong))).toBe(true);
      expect(h.stderr).not.toContain(wrong);
      expect(h.stderr).not.toContain(wrong.split('.')[2]);
    },
    30_000,
  );
});

describe('answers PicoClaw cannot use', () => {
  it('turns a JSON-RPC error into the failure answer and logs it (closed mode)', async () => {
    const gw = await gateway(() => ({ error: { code: -32000, message: 'backend exploded' } }));
    const h = host(['--url', gw.wsUrl, '--on-failure', 'closed', '--timeout-ms', '20000']);
    await h.answer(h.hello());
    const tool = await h.call('hook.before_tool', beforeToolParams('exec'));
    const llm = await h.call('hook.before_llm', { meta: {}, model: 'm' });
    const after = await h.call('hook.after_tool', { meta: {}, tool: 'exec' });
    const approve = await h.call('hook.approve_tool', approveParams);
    const reason = expect.stringMatching(/^hookgate: .*backend exploded/);
    expect(tool.result).toEqual({ action: 'deny_tool', reason });
    expect(llm.result).toEqual({ action: 'abort_turn', reason });
    expect(after.result).toEqual({ action: 'abort_turn', reason });
    expect(approve.result).toEqual({ approved: false, reason });
    expect(tool.error).toBeUndefined();
    const logged = h.logs().filter((l) => l.code === 'UPSTREAM_ERROR_REPLY');
    expect(logged).toHaveLength(4);
    expect(logged[0].reason).toContain('backend exploded');
  }, 30_000);

  it('never writes a stdout line over 1 MiB: a 2 MiB result becomes the neutral answer', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const gw = await gateway((req) => {
      if (req.method === 'hook.approve_tool') return { result: { approved: true, reason: big } };
      if (req.method === 'hook.before_llm') return { result: { action: 'modify', request: { model: big } } };
      return { result: { action: 'deny_tool', reason: 'small' } };
    });
    const h = host(['--url', gw.wsUrl, '--on-failure', 'closed', '--timeout-ms', '20000']);
    await h.answer(h.hello());
    expect((await h.call('hook.before_llm', { meta: {}, model: 'm' })).result).toEqual({
      action: 'continue',
    });
    expect((await h.call('hook.approve_tool', approveParams)).result).toEqual(DENIED);
    // The connection survived: the next ordinary answer still arrives.
    expect((await h.call('hook.before_tool', beforeToolParams('exec'))).result).toEqual({
      action: 'deny_tool',
      reason: 'small',
    });
    for (const line of h.lines) expect(Buffer.byteLength(line) + 1).toBeLessThanOrEqual(1024 * 1024);
    expect(h.logs().filter((l) => /too big for PicoClaw/.test(l.msg))).toHaveLength(2);
    expect(gw.connections).toBe(1);
  }, 30_000);
});

describe('--allow-respond', () => {
  const respondFor = (): GatewayHandler => (req) => {
    const tool = (req.params as { tool: string }).tool;
    if (tool === 'sneaky')
      return { result: { Action: 'respond', Result: { for_llm: 'faked', is_error: false } } };
    return { result: { action: 'respond', result: { for_llm: `result of ${tool}`, is_error: false } } };
  };

  it('lets a respond through only for listed tools, whatever the gateway says', async () => {
    const gw = await gateway(respondFor());
    const h = host(['--url', gw.wsUrl, '--allow-respond', 'get_weather,calendar']);
    await h.answer(h.hello());
    expect((await h.call('hook.before_tool', beforeToolParams('get_weather'))).result).toEqual({
      action: 'respond',
      result: { for_llm: 'result of get_weather', is_error: false },
    });
    expect((await h.call('hook.before_tool', beforeToolParams('exec'))).result).toEqual({
      action: 'continue',
    });
    // Go matches keys case-insensitively: "Action" is PicoClaw's action too.
    expect((await h.call('hook.before_tool', beforeToolParams('sneaky'))).result).toEqual({
      action: 'continue',
    });
    expect(h.logs().filter((l) => l.msg === 'gateway answer refused by the bridge')).toHaveLength(2);
  }, 30_000);

  it('passes a respond on untouched without the flag (the gateway is the one that checks)', async () => {
    const gw = await gateway(respondFor());
    const h = host(['--url', gw.wsUrl]);
    await h.answer(h.hello());
    expect((await h.call('hook.before_tool', beforeToolParams('exec'))).result).toEqual({
      action: 'respond',
      result: { for_llm: 'result of exec', is_error: false },
    });
  }, 30_000);
});

describe('--max-message-bytes', () => {
  it('answers a call too big for the gateway by the failure mode without sending it', async () => {
    const gw = await gateway(() => ({ result: { action: 'continue' } }));
    const h = host(['--url', gw.wsUrl, '--on-failure', 'closed', '--max-message-bytes', '4096']);
    await h.answer(h.hello());
    const huge = { meta: {}, model: 'm', messages: [{ role: 'user', content: 'z'.repeat(10_000) }] };
    expect((await h.call('hook.before_llm', huge)).result).toEqual({
      action: 'abort_turn',
      reason: expect.stringMatching(/^hookgate: call is \d+ bytes, over --max-message-bytes 4096/),
    });
    expect((await h.call('hook.before_llm', { meta: {}, model: 'm' })).result).toEqual({
      action: 'continue',
    });
    expect(gw.calls).toHaveLength(1);
    expect(gw.connections).toBe(1);
  }, 30_000);
});

describe('an error nothing in the bridge caught', () => {
  it('is logged and the bridge keeps answering (a dead hook process makes PicoClaw skip it: fail open)', async () => {
    const g = await gateway(() => ({ result: { action: 'deny_tool', reason: 'guarded' } }));
    const h = host(['--url', g.wsUrl], {
      HOOKGATE_TOKEN: TOKEN,
      NODE_OPTIONS: '--import ./test/bridge/fixtures/stray-errors.mjs',
    });
    h.hello();
    await eventually(
      () => h.stderr.includes('stray-error-after-start') && h.stderr.includes('stray-rejection-after-start'),
      10_000,
      'both stray errors logged',
    );
    await sleep(100);
    const id = h.request('hook.before_tool', beforeToolParams('exec'));
    await eventually(() => h.answers.has(id), 30_000, 'the call after the errors answered');
    expect(h.answers.get(id)?.result).toMatchObject({ action: 'deny_tool', reason: 'guarded' });
    const logged = h.stderr
      .split('\n')
      .filter((l) => l.includes('stray-'))
      .map((l) => JSON.parse(l));
    expect(logged.map((l) => l.error).sort(), h.stderr).toEqual([
      'stray-error-after-start',
      'stray-rejection-after-start',
    ]);
    for (const line of logged) expect(line).toMatchObject({ level: 'error', service: 'hookgate-bridge' });
  }, 30_000);
});
