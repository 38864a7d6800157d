import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { postTool, preLlm, preTool } from '../../helpers/hermes-payloads.js';
import { recorder } from '../../helpers/recording-hook.js';

/**
 * POST /v1/tenants/{tenant}/hooks/{hook}/hermes through a real gateway on 127.0.0.1, with Hermes's
 * shell-hook payloads and a module hook whose answers each test scripts.
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

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        granted: { ...rec, modes: ALL, grants: { rewrite_tools: ['terminal'] } },
        plain: { ...rec, modes: ALL },
        reader: { ...rec, modes: ALL, grants: { conversation_access: true, rewrite_messages: true } },
        writer: { ...rec, modes: ALL, grants: { rewrite_messages: true } },
        closed: { ...down, modes: ALL, on_failure: 'closed' },
        open: { ...down, modes: ALL, on_failure: 'open' },
        'my-weather': { ...rec, modes: ['tool'], tools: ['get_weather', 'get-time'] },
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

async function hermes(hook: string, body: unknown, token?: string | null) {
  const auth: Record<string, string> =
    token === null ? {} : { authorization: `Bearer ${token ?? (await gw.token())}` };
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}/hermes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const rewrite = (args: Record<string, unknown>) => (_m: string, params: any) => ({
  action: 'modify',
  call: { ...params, arguments: args },
});

describe('POST …/hermes', () => {
  it('continue → {}; the hook sees the tool call', async () => {
    expect((await hermes('plain', preTool())).body).toEqual({});
    expect(recorder().calls).toEqual([
      {
        method: 'hook.before_tool',
        params: expect.objectContaining({ tool: 'terminal', arguments: { command: 'ls' } }),
      },
    ]);
  });

  it('deny_tool → block with the reason', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no shell today' });
    expect((await hermes('plain', preTool())).body).toEqual({ action: 'block', message: 'no shell today' });
  });

  it('a granted rewrite → modify with the complete arguments', async () => {
    recorder().answer = rewrite({ command: 'ls -la' });
    expect((await hermes('granted', preTool())).body).toEqual({
      action: 'modify',
      args: { command: 'ls -la' },
    });
  });

  it('a granted rewrite that removes an argument is refused ({}) and audited with dialect "hermes"', async () => {
    const body = preTool();
    body.tool_input = { command: 'rm -rf build', timeout: 30 };
    recorder().answer = rewrite({ command: 'rm -rf build' });
    const before = gw.logs.audits().length;
    expect((await hermes('granted', body)).body).toEqual({});
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({
        rule: 'rewrite_removes_argument',
        dialect: 'hermes',
        tool: 'terminal',
        answered: 'continue',
      }),
    ]);
  });

  it('an ungranted rewrite → {} and audited; the PicoClaw route audits the same hook as "picoclaw"', async () => {
    recorder().answer = rewrite({ command: 'ls -la' });
    const before = gw.logs.audits().length;
    expect((await hermes('plain', preTool())).body).toEqual({});
    await gw.call('plain', 'hook.before_tool', { tool: 'terminal', arguments: { command: 'ls' } });
    expect(
      gw.logs
        .audits()
        .slice(before)
        .map((a) => [a.rule, a.dialect]),
    ).toEqual([
      ['rewrite_arguments_not_granted', 'hermes'],
      ['rewrite_arguments_not_granted', 'picoclaw'],
    ]);
  });

  it('matches the hook’s own MCP server’s tools by their bare names, so its respond is taken', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'sunny' } });
    // Server hookgate_my_weather (setup hermes); Hermes cleans get-time to get_time.
    for (const [sent, seen] of [
      ['mcp__hookgate_my_weather__get_weather', 'get_weather'],
      ['mcp__hookgate_my_weather__get_time', 'get-time'],
    ]) {
      recorder().calls.length = 0;
      const r = await hermes('my-weather', { ...preTool(), tool_name: sent });
      expect(recorder().calls[0].params.tool).toBe(seen);
      expect(r.body).toEqual({ action: 'block', message: 'sunny' });
    }
    // Another server's tool keeps its name, and a respond for it is refused.
    recorder().calls.length = 0;
    const other = await hermes('my-weather', { ...preTool(), tool_name: 'mcp__other__get_weather' });
    expect(recorder().calls[0].params.tool).toBe('mcp__other__get_weather');
    expect(other.body).toEqual({});
  });

  it('post_tool_call reaches the hook as after_tool; answered {}', async () => {
    expect((await hermes('plain', postTool())).body).toEqual({});
    expect(recorder().calls[0]).toMatchObject({
      method: 'hook.after_tool',
      params: { tool: 'terminal', result: { for_llm: '{"output": "hello"}' }, duration: 42_000_000 },
    });
  });

  it('pre_llm_call: conversation text and context only with conversation_access', async () => {
    recorder().answer = (_m: string, params: any) => ({
      action: 'modify',
      request: { ...params, messages: [...params.messages, { role: 'user', content: 'Be brief.' }] },
    });
    expect((await hermes('reader', preLlm())).body).toEqual({ context: 'Be brief.' });
    // Without conversation_access the hook sees no text, and nothing it writes reaches the model.
    expect((await hermes('writer', preLlm())).body).toEqual({});
    const seen = recorder().calls.map((c) => c.params.messages.map((m: any) => m.content));
    expect(seen[0]).toEqual(['hi', 'hello', 'What is the weather?']);
    expect(seen[1]).toEqual(['', '', '']);
  });

  it('other events go to observe-mode hooks as runtime events, text withheld; answered {}', async () => {
    const body = { hook_event_name: 'on_session_end', session_id: 's', extra: { model: 'secret-model' } };
    expect((await hermes('plain', body)).body).toEqual({});
    // Delivered after the answer: wait for it to arrive, then check it is the only one.
    const runtimeEvents = () => recorder().calls.filter((c) => c.method === 'hook.runtime_event');
    await expect.poll(() => runtimeEvents().length).toBeGreaterThan(0);
    const events = runtimeEvents();
    expect(events.map((e) => e.params.kind)).toEqual(['hermes.on_session_end']);
    expect(JSON.stringify(events[0].params)).not.toContain('secret-model');
  });

  it('backend down: closed → block naming the failure; open → {}', async () => {
    const closed = await hermes('closed', preTool());
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ action: 'block' });
    expect(closed.body.message).toContain('hook "closed" failed');
    expect((await hermes('open', preTool())).body).toEqual({});
  });

  it('auth and bad bodies keep their status and never reach the hook', async () => {
    expect((await hermes('plain', preTool(), null)).status).toBe(401);
    expect((await hermes('plain', preTool(), await gw.token({ tenant: 'other' }))).status).toBe(403);
    expect((await hermes('plain', '{"hook_event_name":')).status).toBe(400);
    const r = await hermes('plain', { hook_event_name: 'pre_tool_call' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('tool_name is missing');
    expect(recorder().calls).toEqual([]);
  });

  it('describe lists the hermes dialect', async () => {
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/plain`, {
      headers: { authorization: `Bearer ${await gw.token()}` },
    });
    expect((await res.json()).dialects).toContain('hermes');
  });
});
