import { describe, expect, it } from 'vitest';
import { toHookRequest, toHostAnswer } from '../../../src/hosts/hermes/index.js';
import { CAPTURED_PRE_TOOL_0_19, postTool, preLlm, preTool } from '../../helpers/hermes-payloads.js';

const PRE_TOOL = preTool();
const POST_TOOL = postTool();
const PRE_LLM = preLlm();

const opts = { requestId: 'req-1', now: '2026-11-23T00:00:00.000Z' };

function call(body: Record<string, unknown>) {
  const r = toHookRequest(body, opts);
  if (r.kind !== 'call') throw new Error(`not a call: ${JSON.stringify(r)}`);
  return r;
}

describe('Hermes requests → hook calls', () => {
  it('pre_tool_call → hook.before_tool with the tool, its input and the session in meta', () => {
    const r = call(PRE_TOOL);
    expect(r.method).toBe('hook.before_tool');
    expect(r.params).toEqual({
      meta: {
        AgentID: '',
        TurnID: 'turn-1',
        ParentTurnID: '',
        SessionKey: 'sess-1',
        Iteration: 0,
        TracePath: 'turn.tool.before',
        Source: 'hermes',
      },
      tool: 'terminal',
      arguments: { command: 'ls' },
    });
  });

  it('reads the pre_tool_call captured from Hermes 0.19.0 headless', () => {
    const r = call(structuredClone(CAPTURED_PRE_TOOL_0_19) as unknown as Record<string, unknown>);
    expect(r.params).toMatchObject({
      meta: { SessionKey: '20261123_144500_8e45b2', TurnID: CAPTURED_PRE_TOOL_0_19.extra.turn_id },
      tool: 'terminal',
      arguments: { command: 'echo hookgate-probe' },
    });
  });

  it('takes tool_input null (args that are not a dict) as no arguments', () => {
    expect(call({ ...PRE_TOOL, tool_input: null }).params.arguments).toEqual({});
  });

  it('post_tool_call → hook.after_tool with the stringified result and the duration in ns', () => {
    const r = call(POST_TOOL);
    expect(r.method).toBe('hook.after_tool');
    expect(r.params).toMatchObject({
      tool: 'terminal',
      arguments: { command: 'echo hello' },
      result: { for_llm: '{"output": "hello"}', is_error: false, silent: false, async: false },
      duration: 42_000_000,
    });
    const failed = call({ ...POST_TOOL, extra: { ...POST_TOOL.extra, status: 'error' } });
    expect(failed.params.result).toMatchObject({ is_error: true });
  });

  it('pre_llm_call → hook.before_llm: the history, then the user message, and the model', () => {
    const r = call(PRE_LLM);
    expect(r.method).toBe('hook.before_llm');
    expect(r.params).toMatchObject({
      model: 'gpt-4',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'What is the weather?' },
      ],
    });
  });

  it('turns any other event into a runtime event carrying the payload', () => {
    const body = { hook_event_name: 'on_session_start', session_id: 's', extra: { model: 'm' } };
    const r = toHookRequest(body, opts);
    expect(r).toMatchObject({
      kind: 'event',
      params: { id: 'req-1', kind: 'hermes.on_session_start', scope: { session_key: 's' }, payload: body },
    });
  });

  it.each([
    [[], 'body is not a JSON object'],
    [{}, 'hook_event_name is missing'],
    [{ ...PRE_TOOL, tool_name: null }, 'tool_name is missing'],
    [{ ...PRE_TOOL, tool_input: 'ls' }, 'tool_input is not an object'],
    [{ ...PRE_TOOL, extra: [] }, 'extra is not an object'],
  ])('refuses %j: %s', (body, why) => {
    expect(toHookRequest(body, opts)).toEqual({ kind: 'invalid', why });
  });
});

describe('policy-checked answers → what Hermes reads', () => {
  const pre = () => call(PRE_TOOL);

  it('continue → {} (no decision)', () => {
    expect(toHostAnswer(pre(), { action: 'continue' }, false)).toEqual({});
  });

  it('deny_tool → block with the reason as the message', () => {
    expect(toHostAnswer(pre(), { action: 'deny_tool', reason: 'no rm' }, false)).toEqual({
      action: 'block',
      message: 'no rm',
    });
    expect(toHostAnswer(pre(), { action: 'deny_tool' }, false)).toEqual({
      action: 'block',
      message: 'denied by hook',
    });
  });

  it('a granted rewrite → modify with the complete arguments', () => {
    const r = pre();
    const answer = { action: 'modify', call: { ...r.params, arguments: { command: 'ls -la', cwd: '/tmp' } } };
    expect(toHostAnswer(r, answer, false)).toEqual({
      action: 'modify',
      args: { command: 'ls -la', cwd: '/tmp' },
    });
  });

  it('a modify that changes nothing → {}', () => {
    const r = pre();
    expect(toHostAnswer(r, { action: 'modify', call: { ...r.params } }, false)).toEqual({});
  });

  it('a rename (granted) cannot be carried: block, naming both tools', () => {
    const r = pre();
    const out = toHostAnswer(r, { action: 'modify', call: { ...r.params, tool: 'read_file' } }, false);
    expect(out).toMatchObject({ action: 'block' });
    expect(String(out.message)).toContain('"read_file"');
  });

  it('respond → block whose message is the result the model reads', () => {
    const answer = { action: 'respond', result: { for_llm: 'cached: 42' } };
    expect(toHostAnswer(pre(), answer, false)).toEqual({ action: 'block', message: 'cached: 42' });
  });

  it('abort_turn → block this call (Hermes cannot stop a turn from a shell hook)', () => {
    expect(toHostAnswer(pre(), { action: 'abort_turn', reason: 'stop' }, false)).toEqual({
      action: 'block',
      message: 'stop',
    });
  });

  it('post_tool_call answers {} whatever the hook said (Hermes cannot rewrite results from a shell hook)', () => {
    const r = call(POST_TOOL);
    const answer = { action: 'modify', result: { ...r.params, result: { for_llm: 'other' } } };
    expect(toHostAnswer(r, answer, true)).toEqual({});
  });

  describe('pre_llm_call context', () => {
    const appended = () => {
      const r = call(PRE_LLM);
      const messages = [...(r.params.messages as unknown[]), { role: 'user', content: 'Today is Friday.' }];
      return { r, answer: { action: 'modify', request: { ...r.params, messages } } };
    };

    it('carries text the hook added after the messages, with conversation_access', () => {
      const { r, answer } = appended();
      expect(toHostAnswer(r, answer, true)).toEqual({ context: 'Today is Friday.' });
    });

    it('carries text appended to the user message', () => {
      const r = call(PRE_LLM);
      const messages = structuredClone(r.params.messages) as { content: string }[];
      messages[2].content += '\n(Today is Friday.)';
      expect(toHostAnswer(r, { action: 'modify', request: { ...r.params, messages } }, true)).toEqual({
        context: '(Today is Friday.)',
      });
    });

    it('carries nothing without conversation_access', () => {
      const { r, answer } = appended();
      expect(toHostAnswer(r, answer, false)).toEqual({});
    });

    it('carries nothing for an edit that is not an append', () => {
      const r = call(PRE_LLM);
      const messages = [{ role: 'user', content: 'something else' }];
      expect(toHostAnswer(r, { action: 'modify', request: { ...r.params, messages } }, true)).toEqual({});
    });
  });
});
