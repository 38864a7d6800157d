import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

/**
 * The host routes refuse, with 400 naming the field, a body whose fields break the types the
 * OpenAPI document gives them, even a field the event's translation never reads; what the
 * document takes still reaches the hook.
 */

const rec = {
  backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
  modes: ['tool', 'llm'],
  tools: ['get_weather'],
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ tenants: { acme: tenantDoc({ tools: rec }) } });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
});

async function post(dialect: string, body: unknown) {
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/tools/${dialect}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await gw.token()}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('host bodies against their documented fields', () => {
  it.each([
    [
      'claude-code',
      { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {}, prompt: {} },
      'not a Claude Code hook call: prompt: ',
    ],
    [
      'claude-code',
      { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {}, session_id: 7 },
      'not a Claude Code hook call: session_id: ',
    ],
    [
      'hermes',
      { hook_event_name: 'pre_tool_call', tool_name: 'terminal', tool_input: {}, cwd: ['x'] },
      'not a Hermes hook call: cwd: ',
    ],
  ])('%s refuses %j with 400', async (dialect, body, message) => {
    const r = await post(dialect, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_request');
    expect(r.body.error.message.startsWith(message)).toBe(true);
    expect(recorder().calls).toEqual([]);
  });

  it.each([
    [
      'claude-code',
      { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: null, cwd: '/w', extra_field: 1 },
    ],
    ['hermes', { hook_event_name: 'pre_tool_call', tool_name: 'terminal', tool_input: null, extra: null }],
    ['openclaw', { hook: 'before_tool_call', event: { toolName: 'exec', params: {} }, ctx: null }],
  ])(
    '%s takes %j (nulls the document allows, members it does not name) to the hook',
    async (dialect, body) => {
      const r = await post(dialect, body);
      expect(r.status).toBe(200);
      expect(recorder().calls.length).toBeGreaterThan(0);
    },
  );
});
