import { describe, expect, it } from 'vitest';
import {
  approvalAnswer,
  EXECUTE_TOOL,
  errorResult,
  toHookRequest,
  toHostAnswer,
  toToolResult,
} from '../../../src/hosts/openclaw/index.js';
import {
  keyOf,
  loadOcFixtures,
  notProduced,
  type OcExchange,
  PRODUCIBLE,
  returnedToHost,
} from '../../helpers/openclaw-fixtures.js';

const { exchanges } = loadOcFixtures();
const opts = { requestId: 'req-1', now: '2026-11-23T00:00:00.000Z' };

function call(body: Record<string, unknown>) {
  const r = toHookRequest(body, opts);
  if (r.kind !== 'call') throw new Error(`not a call: ${JSON.stringify(r).slice(0, 200)}`);
  return r;
}

/** The hook's answer that produced the captured handler result: scripted, or continue for `{}`. */
function hookAnswer(x: OcExchange): Record<string, unknown> | undefined {
  const scripted = PRODUCIBLE[keyOf(x)];
  if (scripted) {
    if (scripted.call) return { ...scripted, call: { ...call(x.body).params, ...(scripted.call as object) } };
    return scripted;
  }
  const returned = returnedToHost(x);
  if (returned && JSON.stringify(returned) === '{}') return { action: 'continue' };
  return undefined;
}

describe('OpenClaw translator against every captured exchange', () => {
  it('classifies every exchange: produced by some hook answer, or listed with why not', () => {
    const unclassified = exchanges.filter((x) => !hookAnswer(x) && !notProduced(x)).map(keyOf);
    expect(unclassified).toEqual([]);
    const keys = new Set(exchanges.map(keyOf));
    expect(Object.keys(PRODUCIBLE).filter((k) => !keys.has(k))).toEqual([]);
  });

  it.each(exchanges.filter((x) => hookAnswer(x)).map((x) => [keyOf(x), x] as const))(
    '%s: the hook answer becomes what the handler returned to OpenClaw',
    (_k, x) => {
      const request = toHookRequest(x.body, opts);
      expect(request.kind).not.toBe('invalid');
      const out = request.kind === 'call' ? toHostAnswer(request, hookAnswer(x)!) : {};
      expect(out).toEqual(returnedToHost(x));
    },
  );
});

const find = (file: string, event: string) =>
  structuredClone(exchanges.find((x) => x.file.startsWith(file) && x.event === event)!.body);
const before = find('04', 'before_tool_call');
const after = find('04', 'after_tool_call');
const blockedAfter = find('01', 'after_tool_call');
const llmInput = find('06', 'llm_input');
const llmOutput = find('06', 'llm_output');

describe('host request → hook call', () => {
  it('before_tool_call → hook.before_tool with tool, arguments and the ids in meta', () => {
    const r = call(before);
    expect(r.method).toBe('hook.before_tool');
    expect(r.params).toEqual({
      meta: {
        AgentID: 'main',
        TurnID: '<UUID_1>',
        ParentTurnID: '',
        SessionKey: 'agent:main:explicit:hookgate-e2e-<MARKER>',
        Iteration: 0,
        TracePath: 'turn.tool.before',
        Source: 'openclaw',
      },
      tool: 'exec',
      arguments: { command: 'echo hookgate-e2e-<MARKER>' },
    });
  });

  it('after_tool_call → hook.after_tool with the text content as for_llm', () => {
    const r = call({ ...after, event: { ...after.event, durationMs: 12 } });
    expect(r.method).toBe('hook.after_tool');
    expect(r.params.result).toEqual({
      for_llm: after.event.result.content[0].text,
      silent: false,
      is_error: false,
      async: false,
    });
    expect(r.params.duration).toBe(12_000_000);
  });

  it('after_tool_call of a blocked call is an error whose text is the reason', () => {
    const r = call(blockedAfter);
    expect(r.params.result).toMatchObject({
      for_llm: 'BLOCK-REASON-oc: denied by record-hook',
      is_error: true,
    });
    expect(r.params.duration).toBe(0); // the fixture's "<MS>" placeholder is not a number
  });

  it('llm_input → hook.before_llm: system prompt, history and prompt as messages, no tool schemas', () => {
    const r = call(llmInput);
    expect(r.method).toBe('hook.before_llm');
    const messages = r.params.messages as { role: string; content: string }[];
    expect(messages[0]).toEqual({ role: 'system', content: llmInput.event.systemPrompt });
    expect(messages.at(-1)).toEqual({ role: 'user', content: llmInput.event.prompt });
    expect(messages.length).toBe(2 + llmInput.event.historyMessages.length);
    expect(r.params.model).toBe('hookgate-fake');
    expect(r.params).not.toHaveProperty('tools');
  });

  it('llm_output → hook.after_llm with the assistant text', () => {
    const r = call(llmOutput);
    expect(r.method).toBe('hook.after_llm');
    expect(r.params.response).toEqual({
      role: 'assistant',
      content: 'hookgate-e2e: saw the tool result, done.',
    });
  });

  it('every other hook → a runtime event carrying the event', () => {
    const r = toHookRequest(find('06', 'before_prompt_build'), opts);
    expect(r).toMatchObject({
      kind: 'event',
      hook: 'before_prompt_build',
      params: {
        id: 'req-1',
        kind: 'openclaw.before_prompt_build',
        scope: { session_key: 'agent:main:explicit:hookgate-e2e-<MARKER>', turn_id: '<UUID_1>' },
      },
    });
  });

  it.each([
    ['not an object', [1]],
    ['no hook', { event: {} }],
    ['no event', { hook: 'before_tool_call' }],
    ['ctx not an object', { hook: 'before_tool_call', event: { toolName: 'exec' }, ctx: 'x' }],
    ['no toolName', { hook: 'before_tool_call', event: { params: {} } }],
    ['params not an object', { hook: 'before_tool_call', event: { toolName: 'exec', params: 'ls' } }],
  ])('refuses a body with %s', (_n, body) => {
    expect(toHookRequest(body, opts).kind).toBe('invalid');
  });
});

describe('policy-checked answer → OpenClaw handler result', () => {
  const r = call({ ...before, event: { ...before.event, params: { command: 'ls', timeout: 5 } } });

  it('deny_tool → block with the reason', () => {
    expect(toHostAnswer(r, { action: 'deny_tool', reason: 'no' })).toEqual({
      block: true,
      blockReason: 'no',
    });
    expect(toHostAnswer(r, { action: 'deny_tool' })).toEqual({ block: true, blockReason: 'denied by hook' });
  });

  it('a rewrite is the complete params: keys the hook left out are filled back', () => {
    const out = toHostAnswer(r, {
      action: 'modify',
      call: { ...r.params, arguments: { command: 'echo safer' } },
    });
    expect(out).toEqual({ params: { command: 'echo safer', timeout: 5 } });
  });

  it('an unchanged echo, continue and an unknown action are no objection', () => {
    expect(toHostAnswer(r, { action: 'modify', call: r.params })).toEqual({});
    expect(toHostAnswer(r, { action: 'continue' })).toEqual({});
    expect(toHostAnswer(r, {})).toEqual({});
  });

  it('a rename cannot be expressed and is blocked rather than run as something else', () => {
    expect(toHostAnswer(r, { action: 'modify', call: { ...r.params, tool: 'read' } })).toMatchObject({
      block: true,
    });
  });

  it('respond (granted) → block whose reason is the result text (the tool message the model reads)', () => {
    expect(toHostAnswer(r, { action: 'respond', result: { for_llm: 'sunny, 21 C' } })).toEqual({
      block: true,
      blockReason: 'sunny, 21 C',
    });
  });

  it.each(['abort_turn', 'hard_abort'])('%s → block (a run cannot be stopped from a tool hook)', (action) => {
    expect(toHostAnswer(r, { action, reason: 'stop now' })).toEqual({ block: true, blockReason: 'stop now' });
  });

  it('approve_tool: approved:false → block; approved:true grants nothing', () => {
    expect(approvalAnswer({ approved: false, reason: 'not today' })).toEqual({
      block: true,
      blockReason: 'not today',
    });
    expect(approvalAnswer({ approved: false })).toEqual({ block: true, blockReason: 'denied by hook' });
    expect(approvalAnswer({ approved: true })).toBeUndefined();
  });

  it('every hook but before_tool_call answers {} whatever the hook said', () => {
    for (const body of [after, llmInput, llmOutput]) {
      const c = call(body);
      expect(toHostAnswer(c, { action: 'abort_turn', reason: 'x' })).toEqual({});
      expect(toHostAnswer(c, { action: 'modify', call: { tool: 'x' } })).toEqual({});
    }
  });
});

describe('hookgate.execute_tool (a plugin tool of the hook’s own)', () => {
  it('becomes hook.before_tool with OpenClaw’s ids, the params as arguments, no turn id', () => {
    const r = toHookRequest(
      {
        hook: EXECUTE_TOOL,
        event: { toolName: 'get_weather', params: { city: 'Oslo' }, toolCallId: 'call_9' },
        ctx: { agentId: 'main', sessionKey: 'agent:main:s1' },
      },
      opts,
    );
    expect(r).toEqual({
      kind: 'execute',
      tool: 'get_weather',
      params: {
        meta: {
          AgentID: 'main',
          TurnID: '',
          ParentTurnID: '',
          SessionKey: 'agent:main:s1',
          Iteration: 0,
          TracePath: 'turn.tool.before',
          Source: 'openclaw',
        },
        tool: 'get_weather',
        arguments: { city: 'Oslo' },
      },
    });
  });

  it('an execute without params has empty arguments; one without a toolName is invalid', () => {
    const r = toHookRequest({ hook: EXECUTE_TOOL, event: { toolName: 't' } }, opts);
    expect(r.kind === 'execute' && r.params.arguments).toEqual({});
    expect(toHookRequest({ hook: EXECUTE_TOOL, event: {} }, opts)).toEqual({
      kind: 'invalid',
      why: 'event.toolName is missing',
    });
  });

  it('respond → the result; is_error, deny_tool, other answers and failures → ok: false', () => {
    expect(toToolResult('h', 't', { action: 'respond', result: { for_llm: 'x' } })).toEqual({
      content: [{ type: 'text', text: 'x' }],
      details: { ok: true },
    });
    expect(toToolResult('h', 't', { action: 'respond', result: { for_llm: 'bad', is_error: true } })).toEqual(
      {
        content: [{ type: 'text', text: 'bad' }],
        details: { ok: false, error: 'bad' },
      },
    );
    expect(toToolResult('h', 't', { action: 'deny_tool' }).details).toEqual({
      ok: false,
      error: 'Tool execution denied by hook "h"',
    });
    expect(toToolResult('h', 't', { action: 'modify', call: {} }).details.ok).toBe(false);
    expect(toToolResult('h', 't', { action: 'respond', result: { for_llm: 'x' } }, 'timed out')).toEqual(
      errorResult('hook "h" failed to answer tool "t": timed out'),
    );
  });
});
