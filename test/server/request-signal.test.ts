/**
 * The native call route and the host routes take the request's abort signal only when the gateway
 * needs it (a call held for a person): on Node the request's AbortSignal is made on first read and costs about 2 µs,
 * more than the rest of a small call's bookkeeping. A held call must still end when its host goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeBash } from '../helpers/claude-code-fixtures.js';
import { createNodeLogger } from '../../src/node/logger.js';
import { createApp } from '../../src/server/app.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { PUSH_NEEDS_A_PERSON } from '../helpers/approvals.js';
import { recorder } from '../helpers/recording-hook.js';

/** A request that counts how often its `signal` is read. */
class CountingRequest extends Request {
  reads = 0;
  override get signal(): AbortSignal {
    this.reads++;
    return super.signal;
  }
}

let gw: TestGateway;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        guard: {
          backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
          modes: ['tool'],
          rules: [PUSH_NEEDS_A_PERSON],
          on_failure: 'closed',
          timeout_ms: 60_000,
        },
        // A hook with a tool of its own, which OpenClaw runs through hookgate.execute_tool.
        plugin: {
          backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
          modes: ['tool'],
          tools: ['get_weather'],
          on_failure: 'closed',
          timeout_ms: 60_000,
        },
      }),
    },
  });
  app = createApp({ live: gw.live, gateway: gw.gateway, log: createNodeLogger('warn'), metrics: gw.metrics });
});
afterAll(() => gw?.close());

function post(
  path: string,
  body: unknown,
  token: string,
  signal?: AbortSignal,
  hook = 'guard',
): CountingRequest {
  return new CountingRequest(`${gw.url}/v1/tenants/acme/hooks/${hook}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    signal,
  });
}

/** Each route a Bash-like call can take, and what it answers when the hook says `continue`. */
const ROUTES = [
  {
    route: 'the native call route',
    call: async (command: string, signal?: AbortSignal) =>
      post(
        '',
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'hook.before_tool',
          params: { tool: 'exec', arguments: { command } },
        },
        await gw.token(),
        signal,
      ),
    continued: { jsonrpc: '2.0', id: 1, result: { action: 'continue' } },
  },
  {
    route: 'a host route (Claude Code)',
    call: async (command: string, signal?: AbortSignal) =>
      post('/claude-code', claudeCodeBash(command), await gw.token(), signal),
    continued: {},
  },
];

describe.each(ROUTES)('$route and the request signal', ({ call, continued }) => {
  it('a call the hook answers never reads the signal', async () => {
    recorder().answer = () => ({ action: 'continue' });
    const req = await call('git status');
    const res = await app.fetch(req);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(continued);
    expect(req.reads).toBe(0);
  });

  it('a call held for a person reads it, and ends when the host goes away', async () => {
    const gone = new AbortController();
    const req = await call('git push origin main', gone.signal);
    const answered = app.fetch(req);
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(1);
    expect(req.reads).toBeGreaterThan(0);
    gone.abort();
    // The deadline is a minute away: the held call ends now, as abandoned.
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(0);
    await answered;
  });
});

describe('OpenClaw running the hook’s own tool (hookgate.execute_tool) and the request signal', () => {
  const execute = async (city: string, signal?: AbortSignal) =>
    post(
      '/openclaw',
      {
        hook: 'hookgate.execute_tool',
        event: { toolName: 'get_weather', params: { city }, toolCallId: 'call_1' },
        ctx: { agentId: 'main', sessionKey: 'agent:main:main' },
      },
      await gw.token(),
      signal,
      'plugin',
    );

  it('a tool call the hook answers never reads the signal', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'Berlin: 18 C' } });
    const req = await execute('Berlin');
    const res = await app.fetch(req);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { details: { ok: boolean } }).details.ok).toBe(true);
    expect(req.reads).toBe(0);
  });

  it('a tool call the hook holds for a person reads it, and ends when OpenClaw goes away', async () => {
    recorder().answer = () => ({ action: 'ask_human', reason: 'this one needs a look' });
    const gone = new AbortController();
    const req = await execute('Mordor', gone.signal);
    const answered = app.fetch(req);
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(1);
    expect(req.reads).toBeGreaterThan(0);
    gone.abort();
    await expect.poll(async () => (await gw.approvals.pending('acme')).length).toBe(0);
    await answered;
  });
});
