import { describe, expect, it } from 'vitest';
import { minimiseParams } from '../../src/policy/index.js';
import { loadTranscript } from '../helpers/fixtures.js';
import { paramsFrom } from './helpers.js';

const EVENT = 'hook.runtime_event';
const LEGACY = 'hook.event';

/** The runtime events of fixture 17 by kind, as PicoClaw sends them. */
function fixtureEvent(kind: string): Record<string, any> {
  const n = loadTranscript('17-runtime-event-notifications.jsonl').notifications.find(
    (m) => m.params.kind === kind,
  );
  if (!n) throw new Error(`no ${kind} in fixture 17`);
  return structuredClone(n.params);
}

function event(kind: string, payload: Record<string, unknown>, attrs: unknown = { agent_source: 'runTurn' }) {
  return {
    id: 'evt-9',
    kind,
    time: '2026-06-13T10:00:00Z',
    source: { component: 'agent', name: 'main' },
    scope: { agent_id: 'main', turn_id: 'main-turn-7', chat_id: '123', sender_id: '987' },
    correlation: { trace_id: 'turn.end' },
    severity: 'info',
    payload,
    attrs,
  };
}

describe('runtime events without conversation_access', () => {
  it("withholds the user's message in agent.turn.start, and keeps everything else as sent", () => {
    const sent = fixtureEvent('agent.turn.start');
    const shown = minimiseParams(EVENT, sent) as any;
    expect(JSON.stringify(shown)).not.toContain('List my files');
    expect(shown).toEqual({ ...sent, payload: { UserMessage: '', MediaCount: 0 } });
    expect(sent.payload.UserMessage).toBe('List my files');
  });

  it('withholds tool arguments in agent.tool.exec_start (the hook is not asked about that call)', () => {
    const sent = fixtureEvent('agent.tool.exec_start');
    const shown = minimiseParams(EVENT, sent) as any;
    expect(shown.payload).toEqual({ Tool: 'exec', Arguments: { command: '' } });
    expect(shown.attrs).toEqual(sent.attrs);
  });

  it('passes an event with no conversation text unchanged', () => {
    const sent = fixtureEvent('agent.tool.exec_end');
    expect(minimiseParams(EVENT, sent)).toEqual(sent);
  });

  it('withholds what people, the model and tools said in agent.turn.end, keeping counts and names', () => {
    const sent = event('agent.turn.end', {
      Status: 'completed',
      Workspace: '/home/u/ws',
      Iterations: 2,
      Duration: 1500,
      FinalContentLen: 11,
      UserMessage: 'my password is hunter2',
      FinalContent: 'noted hunter2',
      ActiveSkills: ['notes'],
      AttemptedSkills: null,
      FinalSuccessfulPath: ['exec'],
      SkillContextSnapshots: [{ sequence: 1, trigger: 'initial_build', skill_names: ['notes'] }],
      ToolKinds: ['exec'],
      ToolExecutions: [{ name: 'exec', success: false, error_summary: 'cat: hunter2.txt: denied' }],
    });
    const shown = minimiseParams(EVENT, sent) as any;
    expect(JSON.stringify(shown)).not.toContain('hunter2');
    expect(shown.payload).toEqual({
      ...sent.payload,
      UserMessage: '',
      FinalContent: '',
      ToolExecutions: [{ name: 'exec', success: false, error_summary: '' }],
    });
  });

  it.each([
    [
      'agent.llm.retry',
      { Attempt: 1, MaxRetries: 3, Reason: 'timeout', Error: 'echo: hunter2', Backoff: 5 },
      { Error: '' },
    ],
    ['agent.error', { Stage: 'llm', Message: 'bad request near "hunter2"' }, { Message: '' }],
    [
      'agent.tool.exec_skipped',
      { Tool: 'exec', Reason: 'Tool execution denied by hook: hunter2' },
      { Reason: '' },
    ],
  ])('withholds free text that can quote the conversation in %s', (kind, payload, withheld) => {
    const shown = minimiseParams(EVENT, event(kind, payload)) as any;
    expect(shown.payload).toEqual({ ...payload, ...withheld });
  });

  it('withholds an MCP tool error (it is the tool output) but keeps infrastructure errors', () => {
    const call = event(
      'mcp.tool.call.end',
      { server: 'fs', tool: 'read', duration_ms: 4, is_error: true, error: 'contents: hunter2' },
      { server: 'fs', tool: 'read', duration_ms: 4, is_error: true, error: 'contents: hunter2' },
    );
    expect(JSON.stringify(minimiseParams(EVENT, call))).not.toContain('hunter2');
    const failed = event(
      'mcp.server.failed',
      { server: 'fs', type: 'stdio', command: 'mcp-fs', error: 'exec: not found' },
      { server: 'fs', type: 'stdio', error: 'exec: not found' },
    );
    expect(minimiseParams(EVENT, failed)).toEqual(failed);
  });

  it('passes bus.message.dropped (PicoClaw v0.3.x: bus backpressure, no conversation text)', () => {
    const fields = {
      stream: 'inbound',
      reason: 'queue_full_timeout',
      wait_ms: 250,
      queue_depth: 64,
      queue_capacity: 64,
      dropped_total: 3,
    };
    const sent = {
      ...event('bus.message.dropped', fields, fields),
      source: { component: 'bus', name: 'inbound' },
    };
    expect(minimiseParams(EVENT, sent)).toEqual(sent);
  });

  it('withholds every string of an event kind it does not know, keeping numbers and structure', () => {
    const sent = event(
      'agent.future_kind',
      { Text: 'secret words', Count: 3, Nested: [{ Quote: 'more secret' }] },
      { note: 'secret attr', iteration: 2 },
    );
    const shown = minimiseParams(EVENT, sent) as any;
    expect(shown.payload).toEqual({ Text: '', Count: 3, Nested: [{ Quote: '' }] });
    expect(shown.attrs).toEqual({ note: '', iteration: 2 });
    expect(shown.scope).toEqual(sent.scope);
    expect(shown.kind).toBe('agent.future_kind');
  });

  it('withholds unknown fields of a known kind and of the envelope', () => {
    const sent = {
      ...event('agent.turn.start', { UserMessage: 'hi', MediaCount: 1, Preview: 'hi' }),
      extra: 'x',
    };
    const shown = minimiseParams(EVENT, sent) as any;
    expect(shown.payload).toEqual({ UserMessage: '', MediaCount: 1, Preview: '' });
    expect(shown.extra).toBe('');
  });

  it('reads the older hook.event (PascalCase envelope, numeric kind) the same way', () => {
    const sent = {
      Kind: 0, // turn_start
      Time: '2026-04-01T10:00:00Z',
      Meta: { AgentID: 'main', TurnID: 'main-turn-1', Iteration: 0 },
      Context: {
        inbound: { channel: 'wecom', chat_id: 'c1', sender_id: 's1', raw: { quote_text: 'hunter2' } },
      },
      Payload: { UserMessage: 'hunter2', MediaCount: 0 },
    };
    const shown = minimiseParams(LEGACY, sent) as any;
    expect(JSON.stringify(shown)).not.toContain('hunter2');
    expect(shown.Meta).toEqual(sent.Meta);
    expect(shown.Context.inbound).toEqual({ ...sent.Context.inbound, raw: { quote_text: '' } });
    const toolEnd = { Kind: 9, Payload: { Tool: 'exec', Duration: 3, ForLLMLen: 1 } };
    expect(minimiseParams(LEGACY, toolEnd)).toEqual(toolEnd);
    // A runtime envelope sent under the old name is read as what it is.
    const runtime = fixtureEvent('agent.turn.start');
    expect(minimiseParams(LEGACY, runtime)).toEqual(minimiseParams(EVENT, runtime));
  });

  it('keeps a "__proto__" key an own field, never the prototype', () => {
    const sent = JSON.parse(
      '{"kind":"agent.turn.start","payload":{"__proto__":{"UserMessage":"x"},"MediaCount":1}}',
    );
    const shown = minimiseParams(EVENT, sent) as any;
    expect(Object.getPrototypeOf(shown.payload)).toBe(Object.prototype);
    expect(Object.hasOwn(shown.payload, '__proto__')).toBe(true);
    expect(JSON.stringify(shown.payload)).toBe('{"__proto__":{"UserMessage":""},"MediaCount":1}');
  });
});

describe('call params without conversation_access', () => {
  it.each(['hook.before_tool', 'hook.approve_tool', 'hook.after_tool', 'hook.before_llm'])(
    "withholds text quoted in the channel's raw metadata (context.inbound.raw) in %s",
    (method) => {
      const file =
        method === 'hook.before_llm'
          ? '04-before-llm-continue.jsonl'
          : method === 'hook.after_tool'
            ? '16-after-tool-modify.jsonl'
            : method === 'hook.approve_tool'
              ? '13-approve-true.jsonl'
              : '10-before-tool-respond-plugin-tool.jsonl';
      const sent = paramsFrom(file, method);
      sent.context.inbound.raw = { quote_text: 'hunter2', msg_type: 'text' };
      const shown = minimiseParams(method, sent) as any;
      expect(JSON.stringify(shown)).not.toContain('hunter2');
      expect(shown.context.inbound.raw).toEqual({ quote_text: '', msg_type: '' });
      expect(shown.context.inbound.chat_id).toBe(sent.context.inbound.chat_id);
      expect(shown.context.route).toEqual(sent.context.route);
      expect(shown.meta).toEqual(sent.meta);
    },
  );

  it('leaves the tool call and result a tool hook is asked about as sent', () => {
    const sent = paramsFrom('16-after-tool-modify.jsonl', 'hook.after_tool');
    const shown = minimiseParams('hook.after_tool', sent) as any;
    expect(shown).toEqual(sent);
  });
});
