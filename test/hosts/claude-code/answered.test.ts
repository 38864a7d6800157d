import { describe, expect, it } from 'vitest';
import { answeredLabel } from '../../../src/hosts/claude-code/answered.js';

describe('answeredLabel: what Claude Code was sent, for the audit line', () => {
  it('names decisions and what else the answer carries, never its contents', () => {
    expect(answeredLabel({})).toBe('{}');
    expect(
      answeredLabel({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'allow',
          updatedInput: { command: 'secret' },
        },
      }),
    ).toBe('permissionDecision:allow updatedInput');
    expect(
      answeredLabel({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'm' },
        },
      }),
    ).toBe('behavior:deny');
    expect(answeredLabel({ decision: 'block', reason: 'r' })).toBe('decision:block');
    expect(answeredLabel({ continue: false, stopReason: 'r' })).toBe('continue:false');
  });
});
