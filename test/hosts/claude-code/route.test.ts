import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answeredBody,
  type CcExchange,
  keyOf,
  loadCcFixtures,
  PRODUCIBLE,
} from '../../helpers/claude-code-fixtures.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';

/**
 * POST /v1/tenants/{tenant}/hooks/{hook}/claude-code through a real gateway on 127.0.0.1, with the
 * captured Claude Code bodies and a module hook whose answers each test scripts.
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
let gw: TestGateway;

const { exchanges } = loadCcFixtures();
const find = (file: string, event: string): Record<string, any> =>
  structuredClone(exchanges.find((x) => x.file.startsWith(file) && x.event === event)!.body);

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        // Granted to rewrite and approve Bash, as the captured hook did.
        granted: { ...rec, modes: ALL, grants: { rewrite_tools: ['Bash'], approve_tools: ['Bash'] } },
        plain: { ...rec, modes: ALL },
        reader: { ...rec, modes: ALL, grants: { conversation_access: true } },
        tools: { ...rec, modes: ['tool'] },
        weather: { ...rec, modes: ['tool'], tools: ['get_weather'] },
        closed: { ...down, modes: ALL, on_failure: 'closed' },
        open: { ...down, modes: ALL, on_failure: 'open' },
        slow: { ...rec, modes: ALL, on_failure: 'closed', timeout_ms: 100, approval_timeout_ms: 100 },
        limited: { ...rec, modes: ALL, limits: { calls_per_second: 0.001, burst: 1 } },
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

async function cc(hook: string, body: unknown, token?: string | null) {
  const auth: Record<string, string> =
    token === null ? {} : { authorization: `Bearer ${token ?? (await gw.token())}` };
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

function scriptedAnswer(x: CcExchange) {
  const scripted = PRODUCIBLE[keyOf(x)];
  if (!scripted) return { action: 'continue' };
  const call = scripted.call as Record<string, unknown> | undefined;
  if (call) return (_m: string, params: any) => ({ ...scripted, call: { ...params, ...call } });
  return () => scripted;
}

describe('every captured exchange a hook could have produced, replayed through the gateway', () => {
  const replayable = exchanges.filter(
    (x) => PRODUCIBLE[keyOf(x)] || (x.response.status === 200 && JSON.stringify(answeredBody(x)) === '{}'),
  );
  it.each(replayable.map((x) => [keyOf(x), x] as const))('%s', async (_k, x) => {
    const a = scriptedAnswer(x);
    recorder().answer = typeof a === 'function' ? a : () => a;
    // No verdict on a permission request: a hook that approves a tool it is not granted to approve
    // (a hook's missing `approved` is a denial, as on PicoClaw).
    const noVerdict = x.event === 'PermissionRequest' && !PRODUCIBLE[keyOf(x)];
    if (noVerdict) recorder().answer = () => ({ approved: true });
    const r = await cc(noVerdict ? 'plain' : 'granted', x.body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(answeredBody(x));
  });
});

describe('auth and bad input', () => {
  const body = find('01', 'PreToolUse');

  it('answers 401 without a token and 403 for another tenant’s token (the host’s onFailure decides)', async () => {
    expect((await cc('granted', body, null)).status).toBe(401);
    expect((await cc('granted', body, 'not-a-jwt')).status).toBe(401);
    expect((await cc('granted', body, await gw.token({ tenant: 'other' }))).status).toBe(403);
    expect((await cc('granted', body, await gw.token({ hooks: ['plain'] }))).status).toBe(403);
    expect(recorder().calls).toEqual([]);
  });

  it.each([
    ['not JSON', '{"hook_event_name":'],
    ['no event', '{"tool_name":"Bash"}'],
    ['a tool event without a tool', '{"hook_event_name":"PreToolUse"}'],
  ])('answers 400 for a body that is %s, and never calls the hook', async (_n, text) => {
    const r = await cc('granted', text);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_request');
    expect(recorder().calls).toEqual([]);
  });

  it('applies rate limits as the other routes do: 429 with Retry-After', async () => {
    expect((await cc('limited', body)).status).toBe(200);
    const r = await cc('limited', body);
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('describe lists the dialects and the approve_tools grant', async () => {
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/granted`, {
      headers: { authorization: `Bearer ${await gw.token()}` },
    });
    const d = (await res.json()) as any;
    expect(d.dialects).toEqual([
      'picoclaw',
      'claude-code',
      'openclaw',
      'hermes',
      'codex',
      'copilot',
      'gemini',
    ]);
    expect(d.grants.approve_tools).toEqual(['Bash']);
    const narrowed = await fetch(`${gw.url}/v1/tenants/acme/hooks/granted`, {
      headers: { authorization: `Bearer ${await gw.token({ tools: ['Read'] })}` },
    });
    expect(((await narrowed.json()) as any).grants.approve_tools).toEqual([]);
  });
});

describe('grants on the Claude Code route', () => {
  const rewrite = (_m: string, params: any) => ({
    action: 'modify',
    call: { ...params, arguments: { command: 'echo rewritten' } },
  });

  it('a granted rewrite leaves as the complete updatedInput without permissionDecision', async () => {
    recorder().answer = rewrite;
    const r = await cc('granted', find('01', 'PreToolUse'));
    expect(r.body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        updatedInput: { command: 'echo rewritten', description: 'print a test marker' },
      },
    });
  });

  it('an ungranted rewrite leaves as no decision, audited once with dialect "claude-code"', async () => {
    recorder().answer = rewrite;
    const before = gw.logs.audits().length;
    const r = await cc('plain', find('01', 'PreToolUse'));
    expect(r.body).toEqual({});
    const audits = gw.logs.audits().slice(before);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      dialect: 'claude-code',
      rule: 'rewrite_arguments_not_granted',
      hook: 'plain',
      tool: 'Bash',
      answered: '{}',
    });
  });

  it('the same hook answers the PicoClaw route too, whose refusals are audited with dialect "picoclaw"', async () => {
    recorder().answer = rewrite;
    const before = gw.logs.audits().length;
    const body = await gw.call('plain', 'hook.before_tool', { tool: 'Bash', arguments: { command: 'ls' } });
    expect(body.result).toEqual({ action: 'continue' });
    const audits = gw.logs.audits().slice(before);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ dialect: 'picoclaw', rule: 'rewrite_arguments_not_granted' });
  });

  it('PermissionRequest approved:true inside approve_tools → allow', async () => {
    recorder().answer = () => ({ approved: true });
    const r = await cc('granted', find('14', 'PermissionRequest'));
    expect(r.body).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });

  it('PermissionRequest approved:true outside approve_tools → no decision, audited', async () => {
    recorder().answer = () => ({ approved: true });
    const before = gw.logs.audits().length;
    const r = await cc('plain', find('14', 'PermissionRequest'));
    expect(r.body).toEqual({});
    // Audited as what Claude Code received: no decision, `{}`.
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({
        rule: 'approve_tool_not_granted',
        dialect: 'claude-code',
        tool: 'Bash',
        answered: '{}',
      }),
    ]);
    // PicoClaw's own approve_tool is that host's only approval: unchanged.
    const native = await gw.call('plain', 'hook.approve_tool', { tool: 'Bash', arguments: {} });
    expect(native.result).toEqual({ approved: true });
  });

  it('PermissionRequest approved:false → deny with the message', async () => {
    recorder().answer = () => ({ approved: false, reason: 'not today' });
    const r = await cc('plain', find('14', 'PermissionRequest'));
    expect(r.body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'not today' },
      },
    });
  });

  it('a hook without the approve mode never decides a PermissionRequest (the PicoClaw route denies)', async () => {
    const r = await cc('tools', find('14', 'PermissionRequest'));
    expect(r.body).toEqual({});
    const native = await gw.call('tools', 'hook.approve_tool', { tool: 'Bash', arguments: {} });
    expect(native.result).toMatchObject({ approved: false });
    expect(recorder().calls).toEqual([]);
  });

  it('respond for the hook’s own tool → deny with the result as the reason; for another tool refused', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'sunny' } });
    const own = await cc('weather', { ...find('01', 'PreToolUse'), tool_name: 'get_weather' });
    expect(own.body.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: 'sunny',
    });
    const bash = await cc('weather', find('01', 'PreToolUse'));
    expect(bash.body).toEqual({});
  });

  it('matches the hook’s own MCP server’s tools by their bare names', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'sunny' } });
    const r = await cc('weather', {
      ...find('01', 'PreToolUse'),
      tool_name: 'mcp__hookgate-weather__get_weather',
    });
    expect(recorder().calls[0].params.tool).toBe('get_weather');
    expect(r.body.hookSpecificOutput.permissionDecision).toBe('deny');
  });
});

describe('failure: always 200 with the declared failure answer in Claude Code’s shape', () => {
  it.each([
    ['PreToolUse', '01', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' } }],
    ['PermissionRequest', '14', { hookSpecificOutput: { decision: { behavior: 'deny' } } }],
    ['UserPromptSubmit', '10', { decision: 'block' }],
  ])('backend down, on_failure closed: %s is refused', async (event, file, shape) => {
    const r = await cc('closed', find(file, event));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject(shape);
  });

  it('backend down, on_failure open: no decision', async () => {
    for (const [file, event] of [
      ['01', 'PreToolUse'],
      ['14', 'PermissionRequest'],
      ['10', 'UserPromptSubmit'],
    ]) {
      const r = await cc('open', find(file, event));
      expect([r.status, r.body]).toEqual([200, {}]);
    }
  });

  it('a slow hook is answered by its failure mode at its deadline', async () => {
    // The hook never answers: only a deadline ends the call, and the log says it was the hook's
    // own 100 ms (not the 55 s default of approvals).
    recorder().answer = () => new Promise(() => {});
    const r = await cc('slow', find('14', 'PermissionRequest'));
    expect(r.body).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
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
    const r = await cc('slow', find('01', 'PreToolUse'));
    expect(r.body.hookSpecificOutput.permissionDecision).toBe('deny');
  });
});

describe('what the hook sees', () => {
  it('the tool mode shows the tool call and result it is asked about', async () => {
    await cc('plain', find('01', 'PreToolUse'));
    await cc('plain', find('01', 'PostToolUse'));
    expect(recorder().calls.map((c) => [c.method, c.params.tool, c.params.arguments.command])).toEqual([
      ['hook.before_tool', 'Bash', 'echo hookgate-e2e-<MARKER>'],
      ['hook.after_tool', 'Bash', 'echo hookgate-e2e-<MARKER>'],
    ]);
    expect(recorder().calls[1].params.result.for_llm).toBe('hookgate-e2e-<MARKER>');
  });

  it('the prompt only with conversation_access', async () => {
    const prompt = find('10', 'UserPromptSubmit');
    await cc('plain', prompt);
    await cc('reader', prompt);
    const seen = recorder().calls.map((c) => c.params.messages[0].content);
    expect(seen).toEqual(['', prompt.prompt]);
  });

  it('other events (Stop’s last_assistant_message) only with conversation_access; answered {}', async () => {
    const stop = find('13', 'Stop');
    expect((await cc('plain', stop)).body).toEqual({});
    expect((await cc('reader', stop)).body).toEqual({});
    // Events are delivered after the answer: wait for both to arrive.
    const runtimeEvents = () => recorder().calls.filter((c) => c.method === 'hook.runtime_event');
    await expect.poll(() => runtimeEvents().length, { timeout: 10_000 }).toBe(2);
    const events = runtimeEvents();
    expect(events.map((e) => e.params.kind)).toEqual(['claude-code.Stop', 'claude-code.Stop']);
    expect(events[0].params.payload.last_assistant_message).toBe('');
    expect(events[1].params.payload.last_assistant_message).toBe(stop.last_assistant_message);
    expect(JSON.stringify(events[0].params)).not.toContain('saw the tool result');
  });

  it('a runtime event carries the time of the call (read only for events) and the request id', async () => {
    const before = new Date().toISOString();
    await cc('reader', find('13', 'Stop'));
    const after = new Date().toISOString();
    const runtimeEvents = () => recorder().calls.filter((c) => c.method === 'hook.runtime_event');
    await expect.poll(() => runtimeEvents().length, { timeout: 10_000 }).toBe(1);
    const [event] = runtimeEvents();
    expect(event.params.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(event.params.time >= before && event.params.time <= after).toBe(true);
    expect(event.params.id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('events reach observe-mode hooks only', async () => {
    const dropped = async () =>
      Number(
        /hookgate_events_total\{[^}]*hook="tools"[^}]*outcome="dropped"[^}]*\} (\d+)/.exec(
          await gw.metricsText(),
        )?.[1] ?? 0,
      );
    const before = await dropped();
    await cc('tools', find('13', 'Stop'));
    // The gateway counts the event it drops for a hook without observe: once counted, it is never
    // delivered.
    await expect.poll(dropped, { timeout: 10_000 }).toBe(before + 1);
    expect(recorder().calls).toEqual([]);
  });
});
