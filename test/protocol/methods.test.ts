import { describe, expect, it } from 'vitest';
import { hookObjectMethod } from '../../src/protocol/hook-object.js';
import { isCallMethod, isEventMethod, modeOf } from '../../src/protocol/methods.js';

// Names every plain object answers to through its prototype: none of them is a hook method.
const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf'];

describe('method lookups take own names only', () => {
  it.each(INHERITED)('%s is no call, no event and has no mode', (name) => {
    expect(isCallMethod(name)).toBe(false);
    expect(isEventMethod(name)).toBe(false);
    expect(modeOf(name)).toBeUndefined();
    expect(hookObjectMethod(name)).toBeUndefined();
  });

  it('still knows the real ones', () => {
    expect(isCallMethod('hook.approve_tool')).toBe(true);
    expect(isCallMethod('hook.runtime_event')).toBe(false);
    expect(modeOf('hook.before_tool')).toBe('tool');
    expect(modeOf('hook.event')).toBe('observe');
    expect(hookObjectMethod('hook.after_llm')).toBe('afterLlm');
    expect(hookObjectMethod('hook.event')).toBe('onEvent');
  });
});
