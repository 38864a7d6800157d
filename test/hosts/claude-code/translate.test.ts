import { describe, expect, it } from 'vitest';
import { toHookRequest, toHostAnswer, toolName } from '../../../src/hosts/claude-code/index.js';
import {
  answeredBody,
  type CcExchange,
  keyOf,
  loadCcFixtures,
  notProduced,
  PRODUCIBLE,
} from '../../helpers/claude-code-fixtures.js';

const { exchanges } = loadCcFixtures();
const opts = { requestId: 'req-1', now: '2026-11-23T00:00:00.000Z' };

function call(body: Record<string, unknown>) {
  const r = toHookRequest(body, opts);
  if (r.kind !== 'call') throw new Error(`not a call: ${JSON.stringify(r)}`);
  return r;
}

/** The hook's answer that produced the captured one: scripted, or the neutral answer for `{}`. */
function hookAnswer(x: CcExchange): Record<string, unknown> | undefined {
  const scripted = PRODUCIBLE[keyOf(x)];
  if (scripted) {
    // A modify echoes the whole call; the table gives its tool and arguments.
    if (scripted.call) return { ...scripted, call: { ...call(x.body).params, ...(scripted.call as object) } };
    return scripted;
  }
  if (x.response.status === 200 && JSON.stringify(answeredBody(x)) === '{}') return { action: 'continue' };
  return undefined;
}

describe('Claude Code translator against every captured exchange', () => {
  it('classifies every exchange: produced by some hook answer, or listed with why not', () => {
    const unclassified = exchanges.filter((x) => !hookAnswer(x) && !notProduced(x)).map(keyOf);
    expect(unclassified).toEqual([]);
    // The scripted answers name real exchanges.
    const keys = new Set(exchanges.map(keyOf));
    expect(Object.keys(PRODUCIBLE).filter((k) => !keys.has(k))).toEqual([]);
  });

  it.each(exchanges.filter((x) => hookAnswer(x)).map((x) => [keyOf(x), x] as const))(
    '%s: the hook answer becomes the captured answer',
    (_k, x) => {
      const request = toHookRequest(x.body, opts);
      expect(request.kind).not.toBe('invalid');
      const answer = hookAnswer(x)!;
      const out = request.kind === 'call' ? toHostAnswer(request, answer) : {};
      expect(out).toEqual(answeredBody(x));
    },
  );
});

const pre = exchanges.find((x) => x.file.startsWith('01') && x.event === 'PreToolUse')!;
const post = exchanges.find((x) => x.file.startsWith('01') && x.event === 'PostToolUse')!;
const perm = exchanges.find((x) => x.file.startsWith('14') && x.event === 'PermissionRequest')!;
const prompt = exchanges.find((x) => x.file.startsWith('10') && x.event === 'UserPromptSubmit')!;
const stop = exchanges.find((x) => x.file.startsWith('12') && x.event === 'Stop')!;

describe('host request → hook call', () => {
  it('PreToolUse → hook.before_tool with tool, arguments and the ids in meta', () => {
    const r = call(pre.body);
    expect(r.method).toBe('hook.before_tool');
    expect(r.params).toEqual({
      meta: {
        AgentID: '',
        TurnID: '<UUID_2>',
        ParentTurnID: '',
        SessionKey: '<SESSION_ID>',
        Iteration: 0,
        TracePath: 'turn.tool.before',
        Source: 'claude-code',
      },
      tool: 'Bash',
      arguments: { command: 'echo hookgate-e2e-<MARKER>', description: 'print a test marker' },
    });
  });

  it('PermissionRequest → hook.approve_tool; permission_suggestions never reach the hook', () => {
    const r = call(perm.body);
    expect(r.method).toBe('hook.approve_tool');
    expect(r.params.tool).toBe('Bash');
    expect(r.params.arguments).toEqual(perm.body.tool_input);
    expect(JSON.stringify(r.params)).not.toContain('addDirectories');
  });

  it('PostToolUse → hook.after_tool with the output as a ToolResult', () => {
    const r = call({ ...post.body, duration_ms: 12 });
    expect(r.method).toBe('hook.after_tool');
    expect(r.params.result).toEqual({
      for_llm: 'hookgate-e2e-<MARKER>',
      silent: false,
      is_error: false,
      async: false,
    });
    expect(r.params.duration).toBe(12_000_000);
  });

  it('UserPromptSubmit → hook.before_llm with the prompt as the user message', () => {
    const r = call(prompt.body);
    expect(r.method).toBe('hook.before_llm');
    expect(r.params.messages).toEqual([{ role: 'user', content: prompt.body.prompt }]);
  });

  it('every other event → a runtime event carrying the body', () => {
    const r = toHookRequest(stop.body, opts);
    expect(r).toMatchObject({
      kind: 'event',
      event: 'Stop',
      params: { id: 'req-1', kind: 'claude-code.Stop', scope: { session_key: '<SESSION_ID>' } },
    });
  });

  it.each([
    ['not an object', [1]],
    ['no event', { tool_name: 'Bash' }],
    ['no tool', { hook_event_name: 'PreToolUse' }],
    ['tool_input not an object', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: 'ls' }],
  ])('refuses a body with %s', (_n, body) => {
    expect(toHookRequest(body, opts).kind).toBe('invalid');
  });

  it('matches the hook’s own MCP server’s tools by their bare name, others unchanged', () => {
    expect(toolName('mcp__hookgate-weather__get_weather', 'hookgate-weather')).toBe('get_weather');
    expect(toolName('mcp__other__get_weather', 'hookgate-weather')).toBe('mcp__other__get_weather');
    expect(toolName('mcp__hookgate-weather__get_weather')).toBe('mcp__hookgate-weather__get_weather');
    const r = toHookRequest(
      { ...pre.body, tool_name: 'mcp__hookgate-weather__get_weather' },
      { ...opts, ownMcpServer: 'hookgate-weather' },
    );
    expect(r.kind === 'call' && r.params.tool).toBe('get_weather');
  });
});

describe('policy-checked answer → host answer', () => {
  const r = call(pre.body);

  it('a rewrite is the complete input: keys the hook left out are filled back, no permissionDecision', () => {
    const out = toHostAnswer(r, {
      action: 'modify',
      call: { ...r.params, arguments: { command: 'echo safer' } },
    });
    expect(out).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        updatedInput: { command: 'echo safer', description: 'print a test marker' },
      },
    });
  });

  it('an unchanged echo is no decision', () => {
    expect(toHostAnswer(r, { action: 'modify', call: r.params })).toEqual({});
  });

  it('a rename cannot be expressed and is denied rather than run as something else', () => {
    const out = toHostAnswer(r, { action: 'modify', call: { ...r.params, tool: 'Read' } });
    expect(out).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
  });

  it('respond (granted) → deny with the result text as the reason', () => {
    const out = toHostAnswer(r, { action: 'respond', result: { for_llm: 'sunny, 21 C' } });
    expect(out).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'sunny, 21 C',
      },
    });
  });

  it.each(['abort_turn', 'hard_abort'])('%s → continue:false with stopReason', (action) => {
    expect(toHostAnswer(r, { action, reason: 'stop now' })).toEqual({
      continue: false,
      stopReason: 'stop now',
    });
  });

  it('PreToolUse never emits allow, whatever the answer', () => {
    for (const answer of [
      { action: 'continue' },
      { action: 'modify', call: { ...r.params, arguments: { command: 'x' } } },
      { action: 'respond', result: { for_llm: 'x' } },
      { approved: true },
    ]) {
      expect(JSON.stringify(toHostAnswer(r, answer))).not.toContain('allow');
    }
  });

  it('PermissionRequest: no verdict → {}; allow never carries updatedPermissions', () => {
    const p = call(perm.body);
    expect(toHostAnswer(p, { action: 'continue' })).toEqual({});
    expect(toHostAnswer(p, { approved: true, reason: 'ok' })).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });

  it('PostToolUse: a rewritten result goes back in the tool’s own output shape', () => {
    const p = call(post.body);
    const envelope = { ...p.params, result: { ...(p.params.result as object), for_llm: 'redacted' } };
    expect(toHostAnswer(p, { action: 'modify', result: envelope })).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PostToolUse',
        updatedToolOutput: { ...post.body.tool_response, stdout: 'redacted', stderr: '' },
      },
    });
    expect(toHostAnswer(p, { action: 'modify', result: p.params })).toEqual({});
  });

  it('PostToolUse: a string output stays a string; JSON output is parsed back', () => {
    const s = call({ ...post.body, tool_name: 'Read', tool_response: 'file text' });
    const sEnv = { ...s.params, result: { for_llm: 'other text' } };
    expect(toHostAnswer(s, { action: 'modify', result: sEnv })).toMatchObject({
      hookSpecificOutput: { updatedToolOutput: 'other text' },
    });
    const o = call({ ...post.body, tool_name: 'Grep', tool_response: { matches: 3 } });
    const oEnv = { ...o.params, result: { for_llm: '{"matches":0}' } };
    expect(toHostAnswer(o, { action: 'modify', result: oEnv })).toMatchObject({
      hookSpecificOutput: { updatedToolOutput: { matches: 0 } },
    });
    const bad = { ...o.params, result: { for_llm: 'not json' } };
    expect(toHostAnswer(o, { action: 'modify', result: bad })).toEqual({});
  });

  it('UserPromptSubmit: a rewrite cannot be expressed (no decision)', () => {
    const p = call(prompt.body);
    expect(toHostAnswer(p, { action: 'modify', request: { messages: [] } })).toEqual({});
  });
});
