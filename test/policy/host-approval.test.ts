import { describe, expect, it } from 'vitest';
import { applyPolicy, effectivePolicy, failureAnswer } from '../../src/policy/index.js';
import { hookWith } from './helpers.js';

const P = 'hook.approve_tool';
const params = () => ({ meta: {}, tool: 'Bash', arguments: { command: 'ls' } });
const hook = hookWith({ modes: ['approve'], grants: { approve_tools: ['Bash'] } });

function run(policy: ReturnType<typeof effectivePolicy>, answer: unknown, hostApproves?: boolean) {
  return applyPolicy(P, policy, params(), params(), answer, { hostApproves });
}

describe('approve_tools: the approval-bypass limit on hosts with an approval of their own', () => {
  it('passes approved:true for a tool in approve_tools', () => {
    expect(run(effectivePolicy(hook), { approved: true }, true)).toEqual({
      ok: true,
      result: { approved: true },
      violations: [],
    });
  });

  it('turns approved:true for any other tool into no verdict, with a violation to audit', () => {
    const outcome = run(effectivePolicy(hookWith({ modes: ['approve'] })), { approved: true }, true);
    expect(outcome).toMatchObject({
      ok: true,
      result: { action: 'continue' },
      violations: [{ rule: 'approve_tool_not_granted', tool: 'Bash' }],
    });
  });

  it('is narrowed by the token’s tools claim', () => {
    const outcome = run(effectivePolicy(hook, ['get_weather']), { approved: true }, true);
    expect(outcome).toMatchObject({ result: { action: 'continue' } });
    expect(effectivePolicy(hook, ['Bash', 'x']).approvable).toEqual(new Set(['Bash']));
  });

  it('lets a denial through whatever the grant', () => {
    const outcome = run(
      effectivePolicy(hookWith({ modes: ['approve'] })),
      { approved: false, reason: 'no' },
      true,
    );
    expect(outcome).toEqual({ ok: true, result: { approved: false, reason: 'no' }, violations: [] });
  });

  it('leaves PicoClaw’s approve_tool (the host’s only approval) as it was', () => {
    const outcome = run(effectivePolicy(hookWith({ modes: ['approve'] })), { approved: true });
    expect(outcome).toEqual({ ok: true, result: { approved: true }, violations: [] });
  });

  it('fails closed as declared; open gives no verdict instead of a denial', () => {
    const closed = hookWith({ modes: ['approve'], on_failure: 'closed' });
    const open = hookWith({ modes: ['approve'], on_failure: 'open' });
    expect(failureAnswer(closed, P, 'down', true)).toMatchObject({ approved: false });
    expect(failureAnswer(open, P, 'down', true)).toEqual({ action: 'continue' });
    expect(failureAnswer(open, P, 'down')).toMatchObject({ approved: false });
  });
});
