import { describe, expect, it } from 'vitest';
import { hookObjectMethod, hookObjectProblems, isHookObject } from '../../src/protocol/hook-object.js';

describe('isHookObject', () => {
  it('takes functions for the methods and an array of definitions for `tools`', () => {
    expect(isHookObject({})).toBe(true);
    expect(isHookObject({ beforeTool: () => ({}), tools: [] })).toBe(true);
    expect(isHookObject({ beforeTool: 'no' })).toBe(false);
    // A `tools` that is not a list would make the MCP route list garbage: not a hook object.
    expect(isHookObject({ tools: { get_weather: {} } })).toBe(false);
    expect(isHookObject(null)).toBe(false);
  });

  it('maps wire methods to functions only (never to `tools` or `name`)', () => {
    expect(hookObjectMethod('hook.before_tool')).toBe('beforeTool');
    expect(hookObjectMethod('tools')).toBeUndefined();
    expect(hookObjectMethod('constructor')).toBeUndefined();
  });
});

describe('hookObjectProblems', () => {
  it('an object with no hook function is an error naming what it has instead', () => {
    expect(hookObjectProblems({}, ['tool']).error).toBe(
      'the hook object has none of the hook functions beforeLlm, afterLlm, beforeTool, afterTool, approveTool, onEvent',
    );
    const misspelt = { before_tool: () => ({}), tools: [] } as never;
    expect(hookObjectProblems(misspelt, ['tool']).error).toMatch(/; it has before_tool$/);
  });

  it('a mode no function serves is reported, not an error', () => {
    expect(hookObjectProblems({ beforeTool: () => ({}) }, ['llm', 'tool', 'approve'])).toEqual({
      unserved: ['llm', 'approve'],
    });
    expect(hookObjectProblems({ afterLlm: () => ({}), onEvent: () => {} }, ['llm', 'observe'])).toEqual({
      unserved: [],
    });
  });
});
