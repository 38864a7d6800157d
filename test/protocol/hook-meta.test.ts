import { describe, expect, it } from 'vitest';
import { ownString, ownValue } from '../../src/lib/own-property.js';
import { hookMeta, hostRuntimeEvent } from '../../src/protocol/hook-meta.js';

describe('hookMeta and hostRuntimeEvent: one shape for every host', () => {
  it("is PicoClaw's HookMeta: PascalCase, every key present, zero values for ids a host lacks", () => {
    expect(hookMeta({ source: 'mcp', turnId: 'r1' }, 'turn.tool.before')).toEqual({
      AgentID: '',
      TurnID: 'r1',
      ParentTurnID: '',
      SessionKey: '',
      Iteration: 0,
      TracePath: 'turn.tool.before',
      Source: 'mcp',
    });
  });

  it('names a host event <source>.<event>, with the ids in its scope and the payload as sent', () => {
    const payload = { prompt: 'secret words' };
    expect(
      hostRuntimeEvent('Stop', { source: 'claude-code', sessionKey: 's', turnId: 't', name: 'n' }, payload, {
        requestId: 'id1',
        now: '2026-11-23T00:00:00.000Z',
      }),
    ).toEqual({
      id: 'id1',
      kind: 'claude-code.Stop',
      time: '2026-11-23T00:00:00.000Z',
      source: { component: 'claude-code', name: 'n' },
      scope: { session_key: 's', turn_id: 't' },
      correlation: {},
      payload,
    });
  });
});

describe('ownValue / ownString', () => {
  it('read own fields only: a wire name never reaches an inherited one', () => {
    const o = JSON.parse('{"a":"x","n":1}') as Record<string, unknown>;
    expect(ownValue(o, 'a')).toBe('x');
    expect(ownValue(o, 'constructor')).toBeUndefined();
    expect(ownString(o, 'toString')).toBe('');
    expect(ownString(o, 'n')).toBe('');
    expect(ownString(o, 'a')).toBe('x');
  });
});
