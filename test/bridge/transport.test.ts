import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHandler, HOOK_PATH, TestGateway } from './helpers/gateway.js';
import { beforeToolParams, eventually, TestHost, TOKEN } from './helpers/host.js';

/** HTTP fallback, runtime-event backpressure and process lifecycle, against real sockets. */

const hosts: TestHost[] = [];
const gateways: TestGateway[] = [];

afterEach(async () => {
  for (const h of hosts.splice(0)) h.kill();
  for (const g of gateways.splice(0)) await g.kill();
});

function host(args: string[], env?: Record<string, string | undefined>): TestHost {
  const h = new TestHost(args, env);
  hosts.push(h);
  return h;
}

async function gateway(
  handler: GatewayHandler,
  opts: { websocket?: boolean; notifyDelayMs?: number } = {},
): Promise<TestGateway> {
  const g = await TestGateway.start({ token: TOKEN, handler, ...opts });
  gateways.push(g);
  return g;
}

const echoTool: GatewayHandler = (req) => {
  if (req.method === 'hook.approve_tool') return { result: { approved: true } };
  return { result: { action: 'deny_tool', reason: `gateway saw ${(req.params as { tool: string }).tool}` } };
};

const event = (n: number, pad = 0) => ({
  id: `evt-${n}`,
  kind: 'agent.tool.exec_start',
  time: '2026-06-13T10:00:01.5Z',
  source: { component: 'agent', name: 'main' },
  scope: { agent_id: 'main' },
  correlation: {},
  payload: { Tool: 'exec', Arguments: { pad: 'p'.repeat(pad) } },
});

describe('HTTP POST', () => {
  it('--transport http carries calls and notifications with the bearer header', async () => {
    const gw = await gateway(echoTool, { websocket: false });
    const h = host(['--url', gw.wsUrl, '--transport', 'http']);
    await h.answer(h.hello());
    h.notify('hook.runtime_event', event(1));
    const a = h.request('hook.before_tool', beforeToolParams('exec'));
    h.notify('hook.runtime_event', event(2));
    const b = h.request('hook.approve_tool', { meta: {}, tool: 'exec' });
    expect((await h.answer(a)).result).toEqual({ action: 'deny_tool', reason: 'gateway saw exec' });
    expect((await h.answer(b)).result).toEqual({ approved: true });
    await eventually(() => gw.events.length === 2, 30_000, 'both events');
    expect(gw.events.map((e) => (e.params as { id: string }).id)).toEqual(['evt-1', 'evt-2']);
    expect(gw.upgrades).toBe(0);
    expect(gw.urls.every((u) => u === HOOK_PATH)).toBe(true);
    expect(gw.authHeaders.every((x) => x === `Bearer ${TOKEN}`)).toBe(true);
  }, 30_000);

  it('--transport auto falls back to HTTP when the WebSocket upgrade is refused', async () => {
    const gw = await gateway(echoTool, { websocket: false });
    const h = host(['--url', gw.wsUrl]);
    await h.answer(h.hello());
    expect((await h.call('hook.before_tool', beforeToolParams('exec'))).result).toEqual({
      action: 'deny_tool',
      reason: 'gateway saw exec',
    });
    expect((await h.call('hook.approve_tool', { meta: {}, tool: 'exec' })).result).toEqual({
      approved: true,
    });
    await h.waitForStderr(/no WebSocket at the gateway; using HTTP POST/);
    expect(gw.urls).toContain(`${HOOK_PATH}/ws`);
    expect(gw.calls.every((c) => c.via === 'http')).toBe(true);
  }, 30_000);

  it('--transport ws does not fall back: calls get the failure answer', async () => {
    const gw = await gateway(echoTool, { websocket: false });
    const h = host([
      '--url',
      gw.wsUrl,
      '--transport',
      'ws',
      '--on-failure',
      'closed',
      '--timeout-ms',
      '20000',
    ]);
    await h.answer(h.hello());
    expect((await h.call('hook.before_tool', beforeToolParams('exec'))).result).toEqual({
      action: 'deny_tool',
      reason: expect.stringMatching(/^hookgate: WebSocket upgrade refused: HTTP 404/),
    });
    expect(gw.calls).toHaveLength(0);
  }, 30_000);

  it('--transport auto prefers the WebSocket when there is one', async () => {
    const gw = await gateway(echoTool);
    const h = host(['--url', gw.wsUrl]);
    await h.answer(h.hello());
    await h.call('hook.before_tool', beforeToolParams('exec'));
    expect(gw.calls.map((c) => c.via)).toEqual(['ws']);
  }, 30_000);
});

describe('runtime events under a slow gateway', () => {
  it('keeps answering calls while a notification flood is dropped with a counter (HTTP)', async () => {
    const gw = await gateway(echoTool, { websocket: false, notifyDelayMs: 1000 });
    const h = host(['--url', gw.wsUrl, '--transport', 'http']);
    await h.answer(h.hello());
    const ids: number[] = [];
    for (let i = 0; i < 2000; i++) {
      h.notify('hook.runtime_event', event(i, 200));
      if (i % 400 === 0) ids.push(h.request('hook.before_tool', beforeToolParams(`t${i}`)));
    }
    for (const [n, id] of ids.entries()) {
      expect((await h.answer(id)).result).toEqual({ action: 'deny_tool', reason: `gateway saw t${n * 400}` });
    }
    h.closeStdin();
    expect((await h.exited).code).toBe(0);
    const stopped = h.logs().find((l) => l.msg === 'bridge stopped');
    expect(stopped?.events_dropped).toBeGreaterThan(1500);
    expect(stopped?.events_forwarded + stopped?.events_dropped).toBe(2000);
    expect(h.stderr).toMatch(/runtime event dropped/);
    // Only what the bounded queue let through reached the gateway (in-flight ones at exit count as dropped).
    expect(gw.events.length).toBeLessThanOrEqual(2000 - stopped?.events_dropped + 4);
  }, 60_000);

  it('bounds what it holds when the gateway stops reading the WebSocket, and recovers', async () => {
    const gw = await gateway(echoTool);
    // The stuck call waits out this deadline; the one after the backlog must not meet it.
    const h = host(['--url', gw.wsUrl, '--transport', 'ws', '--timeout-ms', '10000']);
    await h.answer(h.hello());
    await h.call('hook.before_tool', beforeToolParams('warmup'));
    gw.stall(true);
    const flood = 3000;
    for (let i = 0; i < flood; i++) h.notify('hook.runtime_event', event(i, 16 * 1024));
    // Stdin is still read and calls still answered (by their deadline) while the socket is stuck.
    expect((await h.call('hook.before_tool', beforeToolParams('stuck'))).result).toEqual({
      action: 'continue',
    });
    await h.waitForStderr(/runtime event dropped/);
    gw.stall(false);
    await eventually(
      () => gw.calls.some((c) => (c.params as { tool: string }).tool === 'stuck'),
      30_000,
      'backlog',
    );
    expect((await h.call('hook.before_tool', beforeToolParams('after'))).result).toEqual({
      action: 'deny_tool',
      reason: 'gateway saw after',
    });
    h.closeStdin();
    expect((await h.exited).code).toBe(0);
    const stopped = h.logs().find((l) => l.msg === 'bridge stopped');
    expect(stopped?.events_dropped).toBeGreaterThan(flood / 2);
    expect(gw.events.length).toBeLessThanOrEqual(flood - stopped?.events_dropped + 4);
  }, 60_000);
});

describe('process lifecycle', () => {
  it.each(['ws', 'http'])(
    'answers the calls read before stdin ended, then exits 0 (printf <calls> | hookgate bridge, %s)',
    async (transport) => {
      const gw = await gateway(echoTool);
      const h = host(['--url', gw.wsUrl, '--transport', transport]);
      // Written and closed at once: the bridge reads both calls and EOF before the gateway answers.
      const ids = [
        h.request('hook.before_tool', beforeToolParams('exec')),
        h.request('hook.approve_tool', {}),
      ];
      h.closeStdin();
      expect((await h.exited).code).toBe(0);
      expect(h.lines.map((l) => JSON.parse(l)).sort((a, b) => a.id - b.id)).toEqual([
        { jsonrpc: '2.0', id: ids[0], result: { action: 'deny_tool', reason: 'gateway saw exec' } },
        { jsonrpc: '2.0', id: ids[1], result: { approved: true } },
      ]);
      expect(gw.calls.map((c) => c.method).sort()).toEqual(['hook.approve_tool', 'hook.before_tool']);
    },
    30_000,
  );

  it('a call the gateway never answers holds the exit only until its deadline, then the socket closes cleanly', async () => {
    const gw = await gateway(() => ({ hang: true }));
    const h = host(['--url', gw.wsUrl, '--transport', 'ws', '--timeout-ms', '1000']);
    await h.answer(h.hello());
    const id = h.request('hook.before_tool', beforeToolParams('exec'));
    await eventually(() => gw.calls.length === 1, 15_000, 'call at the gateway');
    h.closeStdin();
    expect((await h.exited).code).toBe(0);
    // The failure mode's answer (open by default), at the call's own deadline.
    expect(JSON.parse(h.lines.at(-1)!)).toMatchObject({ id, result: { action: 'continue' } });
    expect(h.logs().find((l) => l.msg === 'answered by failure mode')).toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
    });
    await eventually(() => gw.closeCodes.length === 1, 15_000, 'socket closed');
    expect(gw.closeCodes).toEqual([1000]);
  }, 30_000);

  it('never answers notifications and echoes integer ids', async () => {
    const gw = await gateway(echoTool);
    const h = host(['--url', gw.wsUrl]);
    await h.answer(h.hello());
    h.notify('hook.runtime_event', event(1));
    const id = h.request('hook.before_tool', beforeToolParams('x'));
    h.notify('hook.runtime_event', event(2));
    await h.answer(id);
    await eventually(() => gw.events.length === 2, 30_000, 'events');
    h.closeStdin();
    await h.exited;
    expect(h.lines).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{"ok":true,"name":"hook-adapter"}}',
      '{"jsonrpc":"2.0","id":2,"result":{"action":"deny_tool","reason":"gateway saw x"}}',
    ]);
  }, 30_000);

  it('refuses a --token flag without echoing it, and a missing HOOKGATE_TOKEN', async () => {
    const h = host(['--url', 'wss://gw.example/v1/tenants/a/hooks/b/ws', '--token', 'sekrit-value'], {
      HOOKGATE_TOKEN: TOKEN,
    });
    expect((await h.exited).code).toBe(2);
    expect(h.stderr).toMatch(/--token is not accepted.*HOOKGATE_TOKEN/);
    expect(h.stderr).not.toContain('sekrit-value');
    expect(h.lines).toEqual([]);

    const m = host(['--url', 'wss://gw.example/v1/tenants/a/hooks/b/ws'], {});
    expect((await m.exited).code).toBe(2);
    expect(m.stderr).toMatch(/HOOKGATE_TOKEN is not set/);
  }, 30_000);
});
