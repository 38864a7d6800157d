import { describe, expect, it } from 'vitest';
import { applyPolicy, effectivePolicy } from '../../src/policy/index.js';
import { hookWith } from './helpers.js';

const B = 'hook.before_tool';
const params = () => ({ meta: {}, tool: 'terminal', arguments: { command: 'ls', timeout: 30 } });
const granted = hookWith({ modes: ['tool'], grants: { rewrite_tools: ['terminal'] } });

function run(answer: unknown, mergesArguments?: boolean, hook = granted) {
  return applyPolicy(B, effectivePolicy(hook), params(), params(), answer, { mergesArguments });
}

const modify = (args: Record<string, unknown>) => ({
  action: 'modify',
  call: { tool: 'terminal', arguments: args },
});

describe('mergesArguments: a host that merges rewrites key by key (Hermes)', () => {
  it('refuses a granted rewrite that removes an argument, with a violation to audit', () => {
    expect(run(modify({ command: 'ls -l' }), true)).toMatchObject({
      ok: true,
      result: { action: 'continue' },
      violations: [{ rule: 'rewrite_removes_argument', tool: 'terminal' }],
    });
  });

  it('denies instead when the hook says on_violation: deny', () => {
    const hook = hookWith({ modes: ['tool'], on_violation: 'deny', grants: { rewrite_tools: ['terminal'] } });
    const outcome = run(modify({ command: 'ls -l' }), true, hook);
    expect(outcome).toMatchObject({ result: { action: 'deny_tool' } });
    expect(outcome.ok && String(outcome.result.reason)).toContain('"timeout"');
  });

  it('passes a granted rewrite that changes or adds arguments', () => {
    const args = { command: 'ls -l', timeout: 30, cwd: '/tmp' };
    expect(run(modify(args), true)).toEqual({
      ok: true,
      result: { action: 'modify', call: { meta: {}, tool: 'terminal', arguments: args } },
      violations: [],
    });
  });

  it('leaves hosts that replace the arguments whole as they were', () => {
    expect(run(modify({ command: 'ls -l' }))).toMatchObject({
      result: { action: 'modify', call: { arguments: { command: 'ls -l' } } },
      violations: [],
    });
  });

  it('reports an ungranted rewrite as ungranted, not as a removal', () => {
    expect(run(modify({ command: 'x' }), true, hookWith({ modes: ['tool'] }))).toMatchObject({
      violations: [{ rule: 'rewrite_arguments_not_granted' }],
    });
  });
});
