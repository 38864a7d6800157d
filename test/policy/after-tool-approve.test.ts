import { describe, expect, it } from 'vitest';
import { applyPolicy, effectivePolicy } from '../../src/policy/index.js';
import { hookWith, paramsFrom } from './helpers.js';

const T = 'hook.after_tool';
const P = 'hook.approve_tool';

describe('after_tool', () => {
  const redact = (p: any) => ({
    action: 'modify',
    result: { ...p, result: { ...p.result, for_llm: 'OPENAI_API_KEY=[redacted]\n' } },
  });

  it("refuses rewriting a host tool's result without rewrite_results", () => {
    const p = paramsFrom('16-after-tool-modify.jsonl', T);
    const out = applyPolicy(T, effectivePolicy(hookWith()), p, p, redact(p));
    expect(out.ok && out.result).toEqual({ action: 'continue' });
    expect(out.ok && out.violations[0]).toMatchObject({
      rule: 'rewrite_results_not_granted',
      tool: 'read_file',
    });
  });

  it('passes it with the grant, as the nested envelope (result.result)', () => {
    const p = paramsFrom('16-after-tool-modify.jsonl', T);
    const out = applyPolicy(
      T,
      effectivePolicy(hookWith({ grants: { rewrite_results: true } })),
      p,
      p,
      redact(p),
    );
    expect(out.ok && out.result).toEqual(redact(p));
  });

  it("always lets a hook rewrite its own tool's result", () => {
    const p = { ...paramsFrom('16-after-tool-modify.jsonl', T), tool: 'get_weather' };
    const out = applyPolicy(T, effectivePolicy(hookWith()), p, p, redact(p));
    expect(out.ok && (out.result.result as any).result.for_llm).toBe('OPENAI_API_KEY=[redacted]\n');
  });

  it('refuses a rename of a host tool in after_tool without the grant', () => {
    const p = paramsFrom('16-after-tool-modify.jsonl', T);
    const out = applyPolicy(T, effectivePolicy(hookWith()), p, p, {
      action: 'modify',
      result: { ...p, tool: 'get_weather' },
    });
    expect(out.ok && out.result).toEqual({ action: 'continue' });
  });
});

describe('approve_tool', () => {
  const p = () => paramsFrom('13-approve-true.jsonl', P);
  const run = (answer: unknown) =>
    applyPolicy(P, effectivePolicy(hookWith({ modes: ['approve'] })), p(), p(), answer);

  it('always answers with an explicit boolean approved', () => {
    expect(run({ approved: true })).toMatchObject({ ok: true, result: { approved: true } });
    expect(run({ approved: false, reason: 'no' })).toMatchObject({
      ok: true,
      result: { approved: false, reason: 'no' },
    });
    expect(run({ action: 'continue' })).toMatchObject({ ok: true, result: { approved: false } });
    expect(run(null)).toMatchObject({ ok: true, result: { approved: false } });
    expect(run({})).toMatchObject({ ok: true, result: { approved: false } });
  });

  it('treats a non-boolean approved as a failed hook, never as approval', () => {
    expect(run({ approved: 'yes' }).ok).toBe(false);
    expect(run([true]).ok).toBe(false);
  });
});
