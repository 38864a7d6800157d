import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Gateway } from '../../src/server/gateway.js';
import { loadCcFixtures } from '../helpers/claude-code-fixtures.js';
import { exchange } from '../helpers/command-host-fixtures.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { preTool } from '../helpers/hermes-payloads.js';
import { loadOcFixtures } from '../helpers/openclaw-fixtures.js';
import { recorder } from '../helpers/recording-hook.js';

/**
 * Every dialect route hands the host's W3C `traceparent` header to the gateway on each call it
 * makes (the call's parent span when tracing is on), approvals asked after the first call included.
 */
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const ALL = ['observe', 'llm', 'tool', 'approve'];
const SHELLS = ['Bash', 'bash', 'run_shell_command', 'exec', 'terminal'];
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        all: { ...rec, modes: ALL, grants: { rewrite_tools: SHELLS, approve_tools: SHELLS } },
        weather: { ...rec, modes: ['tool'], tools: ['get_weather'] },
      }),
    },
  });
});
afterAll(() => gw?.close());
afterEach(() => {
  vi.restoreAllMocks();
  recorder().answer = () => ({ action: 'continue' });
});

/** Posts `body` to the hook's `dialect` route with a traceparent; the origins of the gateway calls it made. */
async function originsOf(dialect: string, hook: string, body: unknown): Promise<unknown[]> {
  const invoke = vi.spyOn(Gateway.prototype, 'invoke');
  invoke.mockClear();
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}/${dialect}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await gw.token()}`,
      traceparent: TRACEPARENT,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  await res.text();
  return invoke.mock.calls.map((call) => call[4]);
}

const cc = loadCcFixtures().exchanges;
const oc = loadOcFixtures().exchanges;
const ccBody = (event: string) => structuredClone(cc.find((x) => x.event === event)!.body);
const ocBody = (event: string) => structuredClone(oc.find((x) => x.event === event)!.body);
const traced = expect.objectContaining({ traceparent: TRACEPARENT });

describe('the dialect routes pass the traceparent header on', () => {
  it('Claude Code', async () => {
    const origins = await originsOf('claude-code', 'all', ccBody('PreToolUse'));
    expect(origins).toEqual([traced]);
  });

  it('Hermes', async () => {
    expect(await originsOf('hermes', 'all', preTool())).toEqual([traced]);
  });

  it('OpenClaw: before_tool, then approve_tool for a hook with the approve mode', async () => {
    expect(await originsOf('openclaw', 'all', ocBody('before_tool_call'))).toEqual([traced, traced]);
  });

  it('OpenClaw: one of the hook’s own tools', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'sunny' } });
    const body = {
      hook: 'hookgate.execute_tool',
      event: { toolName: 'get_weather', params: { city: 'Oslo' }, toolCallId: 'call_1' },
      ctx: { agentId: 'main', sessionKey: 'agent:main:main' },
    };
    expect(await originsOf('openclaw', 'weather', body)).toEqual([traced]);
  });

  it('the command hosts: Codex; Copilot with the approval its event also is', async () => {
    expect(await originsOf('codex', 'all', exchange('codex', '01').stdin)).toEqual([traced]);
    expect(await originsOf('copilot', 'all', exchange('copilot', '12').stdin)).toEqual([traced, traced]);
  });
});
