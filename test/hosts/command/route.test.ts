import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CommandExchange, exchange, loadCommandFixtures } from '../../helpers/command-host-fixtures.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';

/**
 * POST …/hooks/{hook}/codex|copilot|gemini through a real gateway on 127.0.0.1, fed the stdin the
 * real hosts wrote (test/fixtures/<host>/), with a module hook whose answers each test scripts.
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
const SHELLS = ['Bash', 'bash', 'run_shell_command'];
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        plain: { ...rec, modes: ALL },
        granted: { ...rec, modes: ALL, grants: { rewrite_tools: SHELLS, approve_tools: SHELLS } },
        'tool-only': { ...rec, modes: ['tool'], grants: { approve_tools: SHELLS } },
        closed: { ...down, modes: ALL, on_failure: 'closed' },
        open: { ...down, modes: ALL, on_failure: 'open' },
      }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

async function post(host: string, hook: string, body: string) {
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}/${host}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await gw.token()}` },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const rewriteTo = (args: Record<string, unknown>, reason?: string) => (m: string, params: any) =>
  m === 'hook.before_tool'
    ? { action: 'modify', call: { ...params, arguments: args }, reason }
    : { approved: false };

/**
 * For each captured hook answer hookgate produces: the hook that produces it (its grants) and the
 * PicoClaw answers. A captured "no output" needs no entry: any hook answering continue produces it.
 */
const PRODUCIBLE: Record<string, { hook: string; answer: (m: string, p: any) => unknown }> = {
  'codex/01-pretool-deny.jsonl#1': {
    hook: 'plain',
    answer: () => ({ action: 'deny_tool', reason: 'denied by ref-hook-cmd' }),
  },
  'codex/05-pretool-rewrite.jsonl#1': {
    hook: 'granted',
    answer: rewriteTo({ command: 'echo rewritten-<MARKER>' }, 'rewritten by ref-hook-cmd'),
  },
  'copilot/01-pretool-deny.jsonl#1': {
    hook: 'plain',
    answer: () => ({ action: 'deny_tool', reason: 'denied by ref-hook-cmd' }),
  },
  'copilot/02-pretool-allow.jsonl#1': {
    hook: 'granted',
    answer: (m) => (m === 'hook.approve_tool' ? { approved: true, reason: 'allowed by ref-hook-cmd' } : {}),
  },
  'copilot/05-pretool-rewrite.jsonl#1': {
    hook: 'granted',
    // The hook rewrites and has no verdict on the approval: `modifiedArgs` alone.
    answer: (m, p) =>
      m === 'hook.before_tool'
        ? { action: 'modify', call: { ...p, arguments: { command: 'echo rewritten-<MARKER>' } } }
        : {},
  },
  'copilot/12-needs-approval-allow.jsonl#1': {
    hook: 'granted',
    answer: (m) => (m === 'hook.approve_tool' ? { approved: true, reason: 'allowed by ref-hook-cmd' } : {}),
  },
  'gemini/01-pretool-deny.jsonl#1': {
    hook: 'plain',
    answer: () => ({ action: 'deny_tool', reason: 'denied by ref-hook-cmd' }),
  },
  'gemini/05-pretool-rewrite.jsonl#1': {
    hook: 'granted',
    answer: rewriteTo({ command: 'echo rewritten-<MARKER>', description: 'print a test marker' }),
  },
};

/** Captured answers hookgate never gives, each with why. A new capture must land in one list. */
const NOT_PRODUCED: Record<string, string> = {
  'codex/02-pretool-allow.jsonl#1':
    'allow without updatedInput: Codex records a failed hook; no objection is nothing',
  'codex/04-pretool-ask.jsonl#1': 'ask: Codex records a failed hook and runs the tool',
  'codex/06-pretool-exit2.jsonl#1': "exit 2 is the shim's, for a gateway failure",
  'codex/07-pretool-crash-exit1.jsonl#1': 'a crash: Codex runs the tool',
  'codex/08-pretool-non-json.jsonl#1': 'plain text: Codex ignores it',
  'codex/09-pretool-timeout-3s.jsonl#1': "a timeout: the shim's own deadline is below the host's",
  'codex/11-pretool-deny-untrusted-hook.jsonl#1': 'the hook never ran',
  'copilot/04-pretool-ask.jsonl#1': 'ask: headless Copilot cannot ask anyone',
  'copilot/06-pretool-exit2.jsonl#1':
    'exit 2: Copilot shows the model no reason; the shim prints a JSON deny',
  'copilot/07-pretool-crash-exit1.jsonl#1': 'a crash',
  'copilot/08-pretool-non-json.jsonl#1': 'plain text: Copilot ignores it',
  'copilot/09-pretool-timeout-3s.jsonl#1': "a timeout: the shim's own deadline is below the host's",
  'copilot/13-pretool-deny-repo-hook-untrusted-folder.jsonl#1': 'the hook never ran',
  'gemini/02-pretool-allow.jsonl#1':
    'allow: never sent to Gemini (whether it skips a confirmation is not established)',
  'gemini/04-pretool-ask.jsonl#1': 'ask ends a headless Gemini run',
  'gemini/06-pretool-exit2.jsonl#1': "exit 2 is the shim's, for a gateway failure",
  'gemini/07-pretool-crash-exit1.jsonl#1': 'a crash: Gemini runs the tool',
  'gemini/08-pretool-non-json.jsonl#1': 'plain text: Gemini ignores it',
  'gemini/09-pretool-timeout-3s.jsonl#1': "a timeout: the shim's own deadline is below the host's",
};

const ALL_EXCHANGES: CommandExchange[] = (['codex', 'copilot', 'gemini'] as const).flatMap((h) =>
  loadCommandFixtures(h),
);
const key = (e: CommandExchange) => `${e.host}/${e.file}#${e.seq}`;

describe('the captured exchanges', () => {
  it('every captured hook answer is either produced or said why not', () => {
    const unclassified = ALL_EXCHANGES.filter(
      (e) => e.response.stdout !== null && !PRODUCIBLE[key(e)] && !NOT_PRODUCED[key(e)],
    ).map(key);
    expect(unclassified).toEqual([]);
    expect(ALL_EXCHANGES.length).toBeGreaterThanOrEqual(30);
  });

  for (const e of ALL_EXCHANGES) {
    const how = PRODUCIBLE[key(e)];
    if (e.response.stdout === null) {
      it(`${key(e)}: a hook answering continue gives no objection ({}, printed as nothing)`, async () => {
        const r = await post(e.host, 'plain', e.stdin);
        expect(r).toEqual({ status: 200, body: {} });
      });
    } else if (how) {
      it(`${key(e)}: the route answers what the host was captured taking`, async () => {
        recorder().answer = how.answer;
        const r = await post(e.host, how.hook, e.stdin);
        expect(r).toEqual({ status: 200, body: e.response.stdout });
      });
    }
  }
});

describe('what the hook sees', () => {
  it('Codex PreToolUse → before_tool with the tool and its input', async () => {
    await post('codex', 'plain', exchange('codex', '01').stdin);
    expect(recorder().calls).toEqual([
      {
        method: 'hook.before_tool',
        params: expect.objectContaining({
          tool: 'Bash',
          arguments: { command: 'echo hookgate-e2e-<MARKER>' },
          meta: expect.objectContaining({ Source: 'codex', SessionKey: '<SESSION_ID>' }),
        }),
      },
    ]);
  });

  it('Copilot postToolUse (told by toolResult) → after_tool with the result text', async () => {
    await post('copilot', 'plain', exchange('copilot', '10', 2).stdin);
    expect(recorder().calls).toEqual([
      {
        method: 'hook.after_tool',
        params: expect.objectContaining({
          tool: 'bash',
          result: expect.objectContaining({ for_llm: expect.stringContaining('hookgate-e2e-<MARKER>') }),
        }),
      },
    ]);
  });

  it('Gemini AfterTool → after_tool with llmContent; its answer carries nothing', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'too late' });
    const r = await post('gemini', 'plain', exchange('gemini', '10', 2).stdin);
    expect(r.body).toEqual({});
    expect(recorder().calls[0].method).toBe('hook.after_tool');
  });

  it('Copilot: approve_tool is asked only of a hook with the approve mode, with the arguments that will run', async () => {
    recorder().answer = rewriteTo({ command: 'echo safer' });
    await post('copilot', 'granted', exchange('copilot', '12').stdin);
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool', 'hook.approve_tool']);
    expect(recorder().calls[1].params.arguments).toEqual({ command: 'echo safer' });
    recorder().calls.length = 0;
    await post('copilot', 'tool-only', exchange('copilot', '12').stdin);
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
  });
});

describe('grants', () => {
  for (const [host, file] of [
    ['codex', '05'],
    ['copilot', '05'],
    ['gemini', '05'],
  ] as const) {
    it(`${host}: a rewrite without rewrite_tools leaves as no objection, audited with dialect "${host}"`, async () => {
      recorder().answer = rewriteTo({ command: 'rm -rf /' });
      const before = gw.logs.audits().length;
      const r = await post(host, 'plain', exchange(host, file).stdin);
      expect(r.body).toEqual({});
      expect(gw.logs.audits().slice(before)).toEqual([
        expect.objectContaining({ dialect: host, rule: 'rewrite_arguments_not_granted', answered: '{}' }),
      ]);
    });
  }

  it('Copilot allow without approve_tools → no objection (Copilot then asks, and refuses headless), audited', async () => {
    recorder().answer = (m) => (m === 'hook.approve_tool' ? { approved: true } : { action: 'continue' });
    const before = gw.logs.audits().length;
    const r = await post('copilot', 'plain', exchange('copilot', '12').stdin);
    expect(r.body).toEqual({});
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({
        dialect: 'copilot',
        rule: 'approve_tool_not_granted',
        tool: 'bash',
        answered: '{}',
      }),
    ]);
  });

  it('Copilot approved:false → no verdict (Copilot decides by itself; blocking is before_tool deny)', async () => {
    recorder().answer = (m) => (m === 'hook.approve_tool' ? { approved: false, reason: 'no writes' } : {});
    const r = await post('copilot', 'granted', exchange('copilot', '12').stdin);
    expect(r.body).toEqual({});
  });

  // Codex 0.169.0's PermissionRequest stdin, as its app-server run showed it (test/real-hosts/codex/
  // permission-request.test.ts): the PreToolUse shape under that event, without tool_use_id, and
  // permission_mode "default" (approval on-request).
  const permissionRequest = () => {
    const { tool_use_id: _, ...pre } = JSON.parse(exchange('codex', '01').stdin);
    return JSON.stringify({ ...pre, hook_event_name: 'PermissionRequest', permission_mode: 'default' });
  };

  it('Codex PermissionRequest approved:true → allow only within approve_tools', async () => {
    recorder().answer = () => ({ approved: true });
    const allow = {
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    };
    expect((await post('codex', 'granted', permissionRequest())).body).toEqual(allow);
    const before = gw.logs.audits().length;
    expect((await post('codex', 'plain', permissionRequest())).body).toEqual({});
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({ dialect: 'codex', rule: 'approve_tool_not_granted', answered: '{}' }),
    ]);
  });

  it('an abort or a granted rename blocks (none of these hosts can carry them)', async () => {
    recorder().answer = () => ({ action: 'abort_turn', reason: 'stop here' });
    expect((await post('gemini', 'granted', exchange('gemini', '03').stdin)).body).toEqual({
      decision: 'deny',
      reason: 'stop here',
    });
    recorder().answer = (_m, p: any) => ({ action: 'modify', call: { ...p, tool: 'bash' } });
    expect((await post('codex', 'granted', exchange('codex', '03').stdin)).body).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'deny' },
    });
  });
});

describe('a hook that fails', () => {
  for (const host of ['codex', 'copilot', 'gemini'] as const) {
    const stdin = exchange(host, '03').stdin;
    it(`${host}: on_failure closed → the host's deny; open → no objection`, async () => {
      const closed = await post(host, 'closed', stdin);
      expect(closed.status).toBe(200);
      expect(JSON.stringify(closed.body)).toMatch(/deny/);
      expect(await post(host, 'open', stdin)).toEqual({ status: 200, body: {} });
    });
  }
});

describe('bad input', () => {
  it.each([
    ['codex', '[]', 'body is not a JSON object'],
    ['codex', '{"hook_event_name":"PreToolUse"}', 'tool_name is missing'],
    ['copilot', '{"sessionId":"s"}', 'toolName is missing'],
    ['copilot', '{"toolName":"bash","toolArgs":"ls"}', 'toolArgs is not an object'],
    [
      'gemini',
      '{"hook_event_name":"BeforeTool","tool_name":"x","tool_input":[1]}',
      'tool_input is not an object',
    ],
    ['gemini', 'not json', ''],
  ])('%s %s → 400', async (host, body, why) => {
    const r = await post(host, 'plain', body);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain(why);
    expect(recorder().calls).toEqual([]);
  });

  it('a host event that is no call goes to observers and answers {}', async () => {
    const r = await post(
      'gemini',
      'plain',
      JSON.stringify({ hook_event_name: 'SessionStart', session_id: 's' }),
    );
    expect(r).toEqual({ status: 200, body: {} });
  });

  it('describe lists the new dialects', async () => {
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/plain`, {
      headers: { authorization: `Bearer ${await gw.token()}` },
    });
    expect((await res.json()).dialects).toEqual(expect.arrayContaining(['codex', 'copilot', 'gemini']));
  });
});
