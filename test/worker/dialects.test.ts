/**
 * The host dialect routes inside workerd, served by the production Worker (exports.default.fetch):
 * the same module hook (test/worker/hooks/tool-hook.ts, which answers `respond` for every tool but
 * is granted only get_weather) guarding Claude Code, OpenClaw (and its plugin tool) and Hermes, each
 * refusal audited with its dialect.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { logLines } from './entry.js';
import { HOOK_URL, token } from './helpers.js';

const worker = exports.default;

async function post(route: string, body: unknown, bearer?: string): Promise<Response> {
  return worker.fetch(`${HOOK_URL}/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer ?? (await token())}` },
    body: JSON.stringify(body),
  });
}

function auditsFor(dialect: string, tool: string): Record<string, unknown>[] {
  return logLines
    .map((l) => JSON.parse(l))
    .filter((l) => l.audit?.dialect === dialect && l.audit?.tool === tool)
    .map((l) => l.audit);
}

describe('host dialect routes in workerd', () => {
  it('Claude Code: the hook’s respond for its own tool is a deny carrying the result; for exec, refused and audited', async () => {
    const own = await post('claude-code', {
      session_id: 's1',
      hook_event_name: 'PreToolUse',
      tool_name: 'get_weather',
      tool_input: { city: 'Berlin' },
      tool_use_id: 'toolu_1',
    });
    expect(own.status).toBe(200);
    expect(JSON.stringify(await own.json())).toContain('Berlin: 18 C, light rain');
    const exec = await post('claude-code', {
      session_id: 's1',
      hook_event_name: 'PreToolUse',
      tool_name: 'exec',
      tool_input: { command: 'rm -rf /' },
      tool_use_id: 'toolu_2',
    });
    expect(await exec.json()).toEqual({});
    expect(auditsFor('claude-code', 'exec')).toHaveLength(1);
  });

  it('OpenClaw: before_tool_call for exec gets no objection and an audit line; the plugin tool’s execute gets the result', async () => {
    const ctx = { agentId: 'main', sessionKey: 'agent:main:main' };
    const exec = await post('openclaw', {
      hook: 'before_tool_call',
      event: { toolName: 'exec', params: { command: 'id' }, runId: 'r1', toolCallId: 'c1' },
      ctx,
    });
    expect(await exec.json()).toEqual({});
    expect(auditsFor('openclaw', 'exec')).toHaveLength(1);
    const tool = await post('openclaw', {
      hook: 'hookgate.execute_tool',
      event: { toolName: 'get_weather', params: { city: 'Oslo' }, toolCallId: 'c2' },
      ctx,
    });
    expect(await tool.json()).toEqual({
      content: [{ type: 'text', text: 'Oslo: 18 C, light rain' }],
      details: { ok: true },
    });
    const narrowed = await post(
      'openclaw',
      { hook: 'hookgate.execute_tool', event: { toolName: 'get_weather', params: {} }, ctx },
      await token({ tools: ['other'] }),
    );
    expect(((await narrowed.json()) as { details: unknown }).details).toEqual({
      ok: false,
      error: 'Unknown tool: get_weather',
    });
  });

  it('Hermes: pre_tool_call for exec is refused and audited; for its own tool the respond is a block carrying the result', async () => {
    const payload = (tool: string, input: Record<string, unknown>) => ({
      hook_event_name: 'pre_tool_call',
      tool_name: tool,
      tool_input: input,
      session_id: 's1',
      cwd: '/',
      extra: { tool_call_id: 'c1' },
    });
    const exec = await post('hermes', payload('exec', { command: 'id' }));
    expect(await exec.json()).toEqual({});
    expect(auditsFor('hermes', 'exec')).toHaveLength(1);
    const own = await post('hermes', payload('get_weather', { city: 'Lisbon' }));
    expect(await own.json()).toMatchObject({ action: 'block', message: 'Lisbon: 18 C, light rain' });
  });
});
