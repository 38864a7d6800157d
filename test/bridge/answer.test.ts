import { describe, expect, it } from 'vitest';
import { shapeResult } from '../../src/bridge/answer.js';
import { failureAnswer, neutralAnswer } from '../../src/bridge/failure.js';

describe('failureAnswer', () => {
  it('fails open with a bare continue, closed with deny_tool or abort_turn, approvals always closed', () => {
    for (const m of ['hook.before_llm', 'hook.after_llm', 'hook.before_tool', 'hook.after_tool']) {
      expect(failureAnswer(m, 'open', 'down')).toEqual({ action: 'continue' });
    }
    expect(failureAnswer('hook.before_tool', 'closed', 'down')).toEqual({
      action: 'deny_tool',
      reason: 'hookgate: down',
    });
    for (const m of ['hook.before_llm', 'hook.after_llm', 'hook.after_tool']) {
      expect(failureAnswer(m, 'closed', 'down')).toEqual({ action: 'abort_turn', reason: 'hookgate: down' });
    }
    for (const mode of ['open', 'closed'] as const) {
      expect(failureAnswer('hook.approve_tool', mode, 'down')).toEqual({
        approved: false,
        reason: 'hookgate: down',
      });
    }
  });

  it('has a neutral answer that changes nothing, except that approvals stay denied', () => {
    expect(neutralAnswer('hook.before_llm', 'big')).toEqual({ action: 'continue' });
    expect(neutralAnswer('hook.approve_tool', 'big')).toEqual({ approved: false, reason: 'hookgate: big' });
  });
});

describe('shapeResult', () => {
  it('sends approvals as an explicit boolean, read the way Go reads it', () => {
    const ok = (r: unknown) => shapeResult('hook.approve_tool', r, {});
    expect(ok({ approved: true })).toEqual({ kind: 'ok', answer: { approved: true } });
    expect(ok({ Approved: false, REASON: 'no', extra: 1 })).toEqual({
      kind: 'ok',
      answer: { approved: false, reason: 'no' },
    });
    for (const bad of [{ action: 'continue' }, { approved: 'yes' }, null, [], 'true', { approved: null }]) {
      expect(ok(bad).kind).toBe('bad');
    }
  });

  it('passes interceptor answers on under canonical keys, and rejects what Go cannot decode', () => {
    // Go folds U+017F (long s) to S, so this key is `result` to PicoClaw.
    expect(shapeResult('hook.after_tool', { action: 'modify', re\u017fult: { tool: 'x' } }, {})).toEqual({
      kind: 'ok',
      answer: { action: 'modify', result: { tool: 'x' } },
    });
    // Last key wins, null changes nothing, unknown keys go.
    expect(
      shapeResult('hook.before_llm', { action: 'modify', ACTION: 'continue', Action: null, junk: 1 }, {}),
    ).toEqual({ kind: 'ok', answer: { action: 'continue' } });
    expect(shapeResult('hook.before_llm', null, {})).toEqual({ kind: 'ok', answer: { action: 'continue' } });
    expect(shapeResult('hook.before_llm', [1], {}).kind).toBe('bad');
    expect(shapeResult('hook.before_llm', { action: 3 }, {}).kind).toBe('bad');
    expect(shapeResult('hook.after_llm', { action: 'modify', response: 'text' }, {}).kind).toBe('bad');
  });

  it('enforces --allow-respond on the tool the host asked about, with Go key folding', () => {
    const ctx = { allowRespond: ['get_weather'], tool: 'exec' };
    const respond = { action: 'respond', result: { for_llm: 'fake' } };
    expect(shapeResult('hook.before_tool', respond, { ...ctx, tool: 'get_weather' })).toEqual({
      kind: 'ok',
      answer: respond,
    });
    for (const r of [respond, { ACTION: ' Respond ', Result: {} }, { action: 'respond', re\u017fult: {} }]) {
      const shaped = shapeResult('hook.before_tool', r, ctx);
      expect(shaped).toMatchObject({ kind: 'refused', answer: { action: 'continue' } });
    }
    // A result riding along on a continue is stripped: a later hook's bare respond would pick it up.
    expect(
      shapeResult(
        'hook.before_tool',
        { action: 'continue', call: { tool: 'exec', Hook_Result: {} }, result: {} },
        ctx,
      ),
    ).toMatchObject({ kind: 'refused', answer: { action: 'continue', call: { tool: 'exec' } } });
    expect(shapeResult('hook.before_tool', { action: 'deny_tool', reason: 'r' }, ctx)).toEqual({
      kind: 'ok',
      answer: { action: 'deny_tool', reason: 'r' },
    });
  });

  it('lets null clear an object field, as Go does (a respond whose result Go reads as gone)', () => {
    expect(
      shapeResult('hook.before_tool', { action: 'respond', result: { for_llm: 'x' }, RESULT: null }, {}),
    ).toEqual({ kind: 'ok', answer: { action: 'respond' } });
    expect(shapeResult('hook.approve_tool', { approved: true, Approved: null }, {})).toEqual({
      kind: 'ok',
      answer: { approved: true },
    });
    // Two objects for one field would merge in Go: the bridge does not guess.
    expect(shapeResult('hook.after_tool', { result: { tool: 'a' }, Result: { tool: 'b' } }, {}).kind).toBe(
      'bad',
    );
  });

  it('passes results of methods it does not know through untouched', () => {
    expect(shapeResult('hook.future', [1, 2], {})).toEqual({ kind: 'ok', answer: [1, 2] });
  });
});

describe('shapeResult and inherited names', () => {
  it.each(['constructor', 'toString', '__proto__'])(
    'passes the answer to a method named %s through untouched (no crash)',
    (method) => {
      expect(shapeResult(method, { action: 'x' }, {})).toEqual({ kind: 'ok', answer: { action: 'x' } });
    },
  );
});
