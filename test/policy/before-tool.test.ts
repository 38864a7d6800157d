import { describe, expect, it } from 'vitest';
import { applyPolicy, effectivePolicy } from '../../src/policy/index.js';
import { hookWith, paramsFrom } from './helpers.js';

const M = 'hook.before_tool';
const weatherCall = () => paramsFrom('10-before-tool-respond-plugin-tool.jsonl', M);
const execCall = () => paramsFrom('12-before-tool-modify-args.jsonl', M);
const respond = {
  action: 'respond',
  result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
};

function run(
  hook: ReturnType<typeof hookWith>,
  params: Record<string, any>,
  answer: unknown,
  tokenTools?: string[],
) {
  const out = applyPolicy(M, effectivePolicy(hook, tokenTools), params, params, answer);
  if (!out.ok) throw new Error(out.why);
  return out;
}

describe('before_tool respond: the approval-bypass limit', () => {
  it("passes a respond for one of the hook's own tools unchanged", () => {
    const out = run(hookWith(), weatherCall(), respond);
    expect(out.result).toEqual(respond);
    expect(out.violations).toEqual([]);
  });

  it('strips a respond for a host tool to a bare continue and names the rule', () => {
    const out = run(hookWith(), execCall(), { ...respond, result: { for_llm: 'fake ls output' } });
    expect(out.result).toEqual({ action: 'continue' });
    expect(out.violations).toEqual([
      expect.objectContaining({ rule: 'respond_tool_not_granted', tool: 'exec' }),
    ]);
  });

  it('turns it into deny_tool with a reason when the hook is configured on_violation: deny', () => {
    const out = run(hookWith({ on_violation: 'deny' }), execCall(), {
      action: 'respond',
      result: { for_llm: 'x' },
    });
    expect(out.result.action).toBe('deny_tool');
    expect(out.result.reason).toMatch(/may not answer tool "exec".*respond_tool_not_granted/);
  });

  it('checks the respond result sent as call.hook_result too', () => {
    const out = run(hookWith(), execCall(), {
      action: 'respond',
      call: { tool: 'get_weather', hook_result: { for_llm: 'x' } },
    });
    expect(out.result).toEqual({ action: 'continue' });
    expect(out.violations[0].rule).toBe('respond_tool_not_granted');
  });

  it('judges respond by the tool the LLM called, not a name the hook renames to (PicoClaw ignores renames on respond)', () => {
    const out = run(hookWith(), execCall(), {
      action: 'respond',
      call: { tool: 'get_weather' },
      result: { for_llm: 'x' },
    });
    expect(out.result).toEqual({ action: 'continue' });
  });

  it('narrows the tools by the token: a tool the token leaves out cannot be answered', () => {
    const out = run(hookWith({ tools: ['get_weather', 'get_time'] }), weatherCall(), respond, ['get_time']);
    expect(out.result).toEqual({ action: 'continue' });
    expect(out.violations[0].rule).toBe('respond_tool_not_granted');
  });

  it('treats a wrongly typed ToolResult as a hook failure (PicoClaw could not decode it)', () => {
    const out = applyPolicy(M, effectivePolicy(hookWith()), weatherCall(), weatherCall(), {
      action: 'respond',
      result: { for_llm: 42 },
    });
    expect(out.ok).toBe(false);
  });

  it('answers a respond without a result with continue (the host would run the original call)', () => {
    expect(run(hookWith(), weatherCall(), { action: 'respond' }).result).toEqual({ action: 'continue' });
  });
});

describe('before_tool rewrites', () => {
  const modifyArgs = (p: Record<string, any>) => ({
    action: 'modify',
    call: { ...p, arguments: { command: 'ls -la' } },
  });

  it("refuses new arguments for a tool that is neither the hook's own nor in rewrite_tools", () => {
    const p = execCall();
    const out = run(hookWith(), p, modifyArgs(p));
    expect(out.result).toEqual({ action: 'continue' });
    expect(out.violations[0]).toMatchObject({ rule: 'rewrite_arguments_not_granted', tool: 'exec' });
  });

  it('passes them with rewrite_tools, echoing the complete call (meta and context included)', () => {
    const p = execCall();
    const out = run(hookWith({ grants: { rewrite_tools: ['exec'] } }), p, modifyArgs(p));
    expect(out.result).toEqual({ action: 'modify', call: { ...p, arguments: { command: 'ls -la' } } });
  });

  it('fills back what the hook left out: a call with only new arguments keeps tool, meta and context', () => {
    const p = execCall();
    const out = run(hookWith({ grants: { rewrite_tools: ['exec'] } }), p, {
      action: 'continue',
      call: { arguments: { command: 'pwd' } },
    });
    expect(out.result.call).toEqual({ ...p, arguments: { command: 'pwd' } });
  });

  it('refuses a rename onto a tool the hook may not rewrite, even from its own tool', () => {
    const p = weatherCall();
    const out = run(hookWith(), p, { action: 'modify', call: { ...p, tool: 'exec' } });
    expect(out.result).toEqual({ action: 'continue' });
    expect(out.violations[0].rule).toBe('rename_not_granted');
  });

  it('denies the whole answer with on_violation: deny', () => {
    const p = execCall();
    const out = run(hookWith({ on_violation: 'deny' }), p, modifyArgs(p));
    expect(out.result).toMatchObject({ action: 'deny_tool' });
  });

  it('answers an unchanged echo with a bare continue', () => {
    const p = execCall();
    expect(run(hookWith(), p, { action: 'modify', call: p }).result).toEqual({ action: 'continue' });
  });

  it('lets deny_tool and abort_turn through: refusing is always allowed', () => {
    const p = execCall();
    expect(run(hookWith(), p, { action: 'deny_tool', reason: 'no' }).result).toEqual({
      action: 'deny_tool',
      reason: 'no',
    });
    expect(run(hookWith(), p, { action: 'abort_turn', reason: 'x' }).result).toEqual({
      action: 'abort_turn',
      reason: 'x',
    });
  });

  it('reads keys case-insensitively, as Go does', () => {
    const out = run(hookWith(), execCall(), { Action: 'respond', Result: { for_llm: 'x' } });
    expect(out.result).toEqual({ action: 'continue' });
    expect(out.violations[0].rule).toBe('respond_tool_not_granted');
  });
});
