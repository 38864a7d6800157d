import { describe, expect, it } from 'vitest';
import { hookObjectMethod, isHookObject } from '../../src/protocol/hook-object.js';

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
