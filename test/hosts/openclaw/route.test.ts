import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import {
  keyOf,
  loadOcFixtures,
  type OcExchange,
  PRODUCIBLE,
  returnedToHost,
} from '../../helpers/openclaw-fixtures.js';
import { recorder } from '../../helpers/recording-hook.js';

/**
 * POST /v1/tenants/{tenant}/hooks/{hook}/openclaw through a real gateway on 127.0.0.1, with the
 * bodies the forwarding plugin posted for real OpenClaw 2026.9.6 and a module hook whose answers
 * each test scripts.
 */
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const down = {
  backend: {
    type: 'http',
    url: 'http://127.0.0.1:9/hook',
    secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`,
  },
};
const ALL = ['observe', 'llm', 'tool', 'approve'];
/** Every mode but approve: approve_tool is asked only of hooks with it (see the approver). */
const NO_APPROVE = ['observe', 'llm', 'tool'];
let gw: TestGateway;

const { exchanges } = loadOcFixtures();
const find = (file: string, event: string): Record<string, any> =>
  structuredClone(exchanges.find((x) => x.file.startsWith(file) && x.event === event)!.body);

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        granted: { ...rec, modes: NO_APPROVE, grants: { rewrite_tools: ['exec'] } },
        plain: { ...rec, modes: NO_APPROVE },
        approver: { ...rec, modes: ['tool', 'approve'], grants: { rewrite_tools: ['exec'] } },
        reader: { ...rec, modes: NO_APPROVE, grants: { conversation_access: true } },
        tools: { ...rec, modes: ['tool'] },
        weather: { ...rec, modes: ['tool'], tools: ['get_weather'] },
        weatherDown: { ...down, modes: ['tool'], tools: ['get_weather'], on_failure: 'closed' },
        closed: { ...down, modes: ALL, on_failure: 'closed' },
        open: { ...down, modes: NO_APPROVE, on_failure: 'open' },
        slow: { ...rec, modes: ['tool'], on_failure: 'closed', timeout_ms: 100 },
        limited: { ...rec, modes: ['tool'], limits: { calls_per_second: 0.001, burst: 1 } },
      }),
      other: tenantDoc({ h: rec }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

async function oc(hook: string, body: unknown, token?: string | null) {
  const auth: Record<string, string> =
    token === null ? {} : { authorization: `Bearer ${token ?? (await gw.token())}` };
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}/openclaw`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

function scriptedAnswer(x: OcExchange) {
  const scripted = PRODUCIBLE[keyOf(x)];
  if (!scripted) return () => ({ action: 'continue' });
  const call = scripted.call as Record<string, unknown> | undefined;
  if (call) return (_m: string, params: any) => ({ ...scripted, call: { ...params, ...call } });
  return () => scripted;
}

describe('every captured exchange a hook could have produced, replayed through the gateway', () => {
  const replayable = exchanges.filter(
    (x) => PRODUCIBLE[keyOf(x)] || JSON.stringify(returnedToHost(x)) === '{}',
  );
  it.each(replayable.map((x) => [keyOf(x), x] as const))('%s', async (_k, x) => {
    recorder().answer = scriptedAnswer(x);
    const r = await oc('granted', x.body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(returnedToHost(x));
  });
});

describe('auth and bad input', () => {
  const body = find('01', 'before_tool_call');

  it('answers 401 without a token and 403 for another tenant’s token (the plugin blocks)', async () => {
    expect((await oc('granted', body, null)).status).toBe(401);
    expect((await oc('granted', body, 'not-a-jwt')).status).toBe(401);
    expect((await oc('granted', body, await gw.token({ tenant: 'other' }))).status).toBe(403);
    expect((await oc('granted', body, await gw.token({ hooks: ['plain'] }))).status).toBe(403);
    expect(recorder().calls).toEqual([]);
  });

  it.each([
    ['not JSON', '{"hook":'],
    ['no hook', '{"event":{}}'],
    ['no event', '{"hook":"before_tool_call"}'],
    ['a tool hook without a tool', '{"hook":"before_tool_call","event":{"params":{}}}'],
  ])('answers 400 for a body that is %s, and never calls the hook', async (_n, text) => {
    const r = await oc('granted', text);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_request');
    expect(recorder().calls).toEqual([]);
  });

  it('applies rate limits as the other routes do: 429 with Retry-After', async () => {
    expect((await oc('limited', body)).status).toBe(200);
    const r = await oc('limited', body);
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('describe lists the openclaw dialect', async () => {
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/granted`, {
      headers: { authorization: `Bearer ${await gw.token()}` },
    });
    expect(((await res.json()) as any).dialects).toEqual([
      'picoclaw',
      'claude-code',
      'openclaw',
      'hermes',
      'codex',
      'copilot',
      'gemini',
    ]);
  });
});

describe('grants on the OpenClaw route', () => {
  const rewrite = (_m: string, params: any) =>
    _m === 'hook.before_tool'
      ? { action: 'modify', call: { ...params, arguments: { command: 'echo rewritten' } } }
      : { approved: true };
  const withTimeout = () => {
    const b = find('01', 'before_tool_call');
    b.event.params = { command: 'echo hi', timeout: 5 };
    return b;
  };

  it('deny_tool → block with the reason, audited nowhere (a denial needs no grant)', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no exec today' });
    const r = await oc('plain', find('01', 'before_tool_call'));
    expect(r.body).toEqual({ block: true, blockReason: 'no exec today' });
  });

  it('a granted rewrite leaves as the complete params', async () => {
    recorder().answer = rewrite;
    const r = await oc('granted', withTimeout());
    expect(r.body).toEqual({ params: { command: 'echo rewritten', timeout: 5 } });
  });

  it('an ungranted rewrite leaves as no objection, audited once with dialect "openclaw"', async () => {
    recorder().answer = rewrite;
    const before = gw.logs.audits().length;
    const r = await oc('plain', withTimeout());
    expect(r.body).toEqual({});
    const audits = gw.logs.audits().slice(before);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      dialect: 'openclaw',
      rule: 'rewrite_arguments_not_granted',
      hook: 'plain',
      tool: 'exec',
    });
  });

  it('approve mode: approve_tool is asked after before_tool, on the arguments that would run', async () => {
    recorder().answer = rewrite;
    const r = await oc('approver', withTimeout());
    expect(r.body).toEqual({ params: { command: 'echo rewritten', timeout: 5 } });
    expect(recorder().calls.map((c) => [c.method, c.params.arguments.command])).toEqual([
      ['hook.before_tool', 'echo hi'],
      ['hook.approve_tool', 'echo rewritten'],
    ]);
    expect(recorder().calls[1].params.meta.TracePath).toBe('turn.tool.approve');
  });

  it('approved:false → block with the reason; approved:true grants nothing and is not audited', async () => {
    recorder().answer = (m) =>
      m === 'hook.approve_tool' ? { approved: false, reason: 'not today' } : { action: 'continue' };
    expect((await oc('approver', find('01', 'before_tool_call'))).body).toEqual({
      block: true,
      blockReason: 'not today',
    });
    recorder().answer = (m) => (m === 'hook.approve_tool' ? { approved: true } : { action: 'continue' });
    const before = gw.logs.audits().length;
    expect((await oc('approver', find('01', 'before_tool_call'))).body).toEqual({});
    expect(gw.logs.audits().slice(before)).toEqual([]);
  });

  it('approve mode: a missing approved is a denial, as on PicoClaw', async () => {
    const r = await oc('approver', find('01', 'before_tool_call'));
    expect(r.body).toMatchObject({ block: true });
  });

  it('a block from before_tool is final: approve_tool is not asked', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no' });
    await oc('approver', find('01', 'before_tool_call'));
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
  });

  it('a hook without the approve mode is never asked approve_tool', async () => {
    await oc('tools', find('01', 'before_tool_call'));
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
  });

  it('respond for the hook’s own tool → block whose reason is the result; for another tool refused', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'sunny' } });
    const own = find('01', 'before_tool_call');
    own.event.toolName = 'get_weather';
    expect((await oc('weather', own)).body).toEqual({ block: true, blockReason: 'sunny' });
    expect((await oc('weather', find('01', 'before_tool_call'))).body).toEqual({});
  });

  it('after_tool_call, llm_input and llm_output are answered {} whatever the hook says', async () => {
    recorder().answer = () => ({ action: 'abort_turn', reason: 'stop' });
    for (const [file, hook] of [
      ['01', 'after_tool_call'],
      ['06', 'llm_input'],
      ['06', 'llm_output'],
    ]) {
      expect((await oc('granted', find(file, hook))).body).toEqual({});
    }
    expect(recorder().calls.map((c) => c.method)).toEqual([
      'hook.after_tool',
      'hook.before_llm',
      'hook.after_llm',
    ]);
  });
});

describe('failure: always 200 with the declared failure answer in OpenClaw’s shape', () => {
  it('backend down, on_failure closed: before_tool_call is blocked with a reason naming the failure', async () => {
    const r = await oc('closed', find('01', 'before_tool_call'));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      block: true,
      blockReason: expect.stringContaining('hookgate: hook "closed" failed'),
    });
  });

  it('backend down, on_failure open: no objection', async () => {
    const r = await oc('open', find('01', 'before_tool_call'));
    expect([r.status, r.body]).toEqual([200, {}]);
  });

  it('a slow hook is answered by its failure mode at its deadline', async () => {
    // The hook never answers: only a deadline ends the call, and the log says it was the hook's
    // own 100 ms (not the 4 s default).
    recorder().answer = () => new Promise(() => {});
    const r = await oc('slow', find('01', 'before_tool_call'));
    expect(r.body).toMatchObject({ block: true });
    expect(gw.logs.lines).toContainEqual(
      expect.objectContaining({
        hook: 'slow',
        code: 'BACKEND_TIMEOUT',
        why: expect.stringMatching(/timed out after 100 ms$/),
      }),
    );
  });

  it('a garbage answer is answered by the failure mode', async () => {
    recorder().answer = () => 'garbage';
    expect((await oc('slow', find('01', 'before_tool_call'))).body).toMatchObject({ block: true });
  });
});

describe('what the hook sees (fixture 06: llm_input carries the whole system prompt and history)', () => {
  const llmInput = find('06', 'llm_input');
  const system: string = llmInput.event.systemPrompt;
  const samples = [
    system.slice(0, 80),
    system.slice(20_000, 20_080),
    'Run the hookgate end-to-end test command',
  ];

  it('without conversation_access no conversation text reaches the hook', async () => {
    await oc('plain', llmInput);
    const [c] = recorder().calls;
    expect(c.method).toBe('hook.before_llm');
    const seen = JSON.stringify(c.params);
    for (const s of samples) expect(seen).not.toContain(s);
    expect(c.params.messages.map((m: any) => m.content).every((t: string) => t === '')).toBe(true);
  });

  it('with conversation_access the hook sees the system prompt and the prompt', async () => {
    await oc('reader', llmInput);
    const seen = JSON.stringify(recorder().calls[0].params);
    for (const s of samples) expect(seen).toContain(JSON.stringify(s).slice(1, -1));
  });

  it('llm_output’s assistant text only with conversation_access', async () => {
    await oc('plain', find('06', 'llm_output'));
    await oc('reader', find('06', 'llm_output'));
    expect(recorder().calls.map((c) => c.params.response.content)).toEqual([
      '',
      'hookgate-e2e: saw the tool result, done.',
    ]);
  });

  it('other hooks (before_prompt_build) are runtime events whose strings are withheld; answered {}', async () => {
    const bpb = find('06', 'before_prompt_build');
    expect((await oc('plain', bpb)).body).toEqual({});
    expect((await oc('reader', bpb)).body).toEqual({});
    // Events are delivered after the answer: wait for both to arrive.
    const runtimeEvents = () => recorder().calls.filter((c) => c.method === 'hook.runtime_event');
    await expect.poll(() => runtimeEvents().length, { timeout: 10_000 }).toBe(2);
    const events = runtimeEvents();
    expect(events.map((e) => e.params.kind)).toEqual([
      'openclaw.before_prompt_build',
      'openclaw.before_prompt_build',
    ]);
    expect(events[0].params.payload.prompt).toBe('');
    expect(events[1].params.payload.prompt).toBe(bpb.event.prompt);
  });

  it('the tool mode shows the tool call and result it is asked about', async () => {
    await oc('plain', find('04', 'before_tool_call'));
    await oc('plain', find('04', 'after_tool_call'));
    expect(recorder().calls.map((c) => [c.method, c.params.tool, c.params.arguments.command])).toEqual([
      ['hook.before_tool', 'exec', 'echo hookgate-e2e-<MARKER>'],
      ['hook.after_tool', 'exec', 'echo hookgate-e2e-<MARKER>'],
    ]);
  });
});

describe('hookgate.execute_tool: OpenClaw runs one of the hook’s own tools', () => {
  const execute = (toolName: string, params: unknown = { city: 'Oslo' }) => ({
    hook: 'hookgate.execute_tool',
    event: { toolName, params, toolCallId: 'call_1' },
    ctx: { agentId: 'main', sessionKey: 'agent:main:main' },
  });

  it('respond → the tool result: for_llm is the text the model reads, media in details', async () => {
    recorder().answer = () => ({
      action: 'respond',
      result: { for_llm: 'sunny, 21 °C', media: ['media://chart.png'] },
    });
    const r = await oc('weather', execute('get_weather'));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      content: [{ type: 'text', text: 'sunny, 21 °C' }],
      details: { ok: true, media: ['media://chart.png'] },
    });
    // Asked exactly as PicoClaw asks before_tool for an injected tool.
    expect(recorder().calls).toEqual([
      {
        method: 'hook.before_tool',
        params: {
          meta: expect.objectContaining({
            AgentID: 'main',
            SessionKey: 'agent:main:main',
            TurnID: '',
            TracePath: 'turn.tool.before',
            Source: 'openclaw',
          }),
          tool: 'get_weather',
          arguments: { city: 'Oslo' },
        },
      },
    ]);
  });

  it('a respond result marked is_error → a failed call with its text', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'no such city', is_error: true } });
    expect((await oc('weather', execute('get_weather'))).body).toEqual({
      content: [{ type: 'text', text: 'no such city' }],
      details: { ok: false, error: 'no such city' },
    });
  });

  it('deny_tool, and an answer that is no result, → a failed call saying why', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'not today' });
    const denied = (await oc('weather', execute('get_weather'))).body;
    expect(denied.details).toEqual({
      ok: false,
      error: 'Tool execution denied by hook "weather": not today',
    });
    expect(denied.content[0].text).toBe(denied.details.error);
    recorder().answer = () => ({ action: 'continue' });
    expect((await oc('weather', execute('get_weather'))).body.details.error).toBe(
      'hook "weather" did not answer tool "get_weather" (it answered "continue")',
    );
  });

  it('the hook’s backend down: a failed call naming the failure, not a hang', async () => {
    const r = await oc('weatherDown', execute('get_weather'));
    expect(r.status).toBe(200);
    expect(r.body.details.ok).toBe(false);
    expect(r.body.details.error).toMatch(/^hook "weatherDown" failed to answer tool "get_weather": /);
  });

  it('a tool the hook does not own, or this token may not use: refused before the hook, audited as openclaw', async () => {
    const before = gw.logs.audits().length;
    const notOwned = await oc('weather', execute('exec'));
    const narrowed = await oc(
      'weather',
      execute('get_weather'),
      await gw.token({ hooks: ['weather'], tools: ['other_tool'] }),
    );
    for (const r of [notOwned, narrowed]) {
      expect(r.status).toBe(200);
      expect(r.body.details.ok).toBe(false);
    }
    expect(notOwned.body.details.error).toBe('Unknown tool: exec');
    expect(narrowed.body.details.error).toBe('Unknown tool: get_weather');
    expect(recorder().calls).toEqual([]);
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({ dialect: 'openclaw', rule: 'tool_not_granted', tool: 'exec' }),
      expect.objectContaining({ dialect: 'openclaw', rule: 'tool_not_granted', tool: 'get_weather' }),
    ]);
  });

  it('no toolName, or params that are not an object → 400 naming it', async () => {
    const noName = await oc('weather', { hook: 'hookgate.execute_tool', event: { params: {} } });
    expect(noName.status).toBe(400);
    expect(noName.body.error.message).toContain('event.toolName is missing');
    const badParams = await oc('weather', execute('get_weather', 'Oslo'));
    expect(badParams.status).toBe(400);
    expect(badParams.body.error.message).toContain('event.params is not an object');
  });
});
