import { describe, expect, it } from 'vitest';
import { foldFieldName, GoStruct, readGoObject } from '../../src/lib/go-json-keys.js';

// From test/lib/go-json-vectors (Go 1.26.8, encoding/json decoding for real into fields "a".."z"):
// the only non-ASCII characters Go matches to an ASCII field name.
const GO_NON_ASCII_FOLDS = { ſ: 's', K: 'k' };

describe('foldFieldName', () => {
  it('folds ASCII letters and exactly the non-ASCII characters Go folds onto ASCII', () => {
    expect(foldFieldName('Approved')).toBe('approved');
    expect(foldFieldName('HOOK_RESULT')).toBe('hook_result');
    for (const [c, ascii] of Object.entries(GO_NON_ASCII_FOLDS)) expect(foldFieldName(c)).toBe(ascii);
    expect(foldFieldName('re\u017fult')).toBe('result');
    expect(foldFieldName('hoo\u212a_result')).toBe('hook_result');
  });

  it('leaves every other character alone (none of them can match an ASCII name in Go)', () => {
    // Dotless ı, dotted İ, Å (Angstrom), fullwidth Ａ: JS toLowerCase would turn İ into "i̇".
    for (const key of ['act\u0131on', '\u0130tem', '\u212bngstrom', '\uff21ction', 'été']) {
      expect(foldFieldName(key)).toBe(key);
    }
  });
});

const RESULT = new GoStruct({ for_llm: 'string', is_error: 'bool', media: 'slice' });
const CALL = new GoStruct({ tool: 'string', arguments: 'map', hook_result: { type: 'pointer', of: RESULT } });
const MESSAGE = new GoStruct({ role: 'string', content: 'string' });
const ANSWER = new GoStruct({
  action: 'string',
  approved: 'bool',
  call: { type: 'pointer', of: CALL },
  messages: { type: 'slice', of: MESSAGE },
  meta: 'struct',
});

const read = (v: Record<string, unknown>) => readGoObject(v, ANSWER);

describe('GoStruct.match', () => {
  it('finds a field by its exact name first, then by its folded name, and ignores the rest', () => {
    expect(ANSWER.match('action')).toBe('action');
    expect(ANSWER.match('ACTION')).toBe('action');
    expect(CALL.match('Hook_Result')).toBe('hook_result');
    expect(ANSWER.match('actıon')).toBeUndefined();
    for (const inherited of ['constructor', '__proto__', 'toString']) {
      expect(ANSWER.match(inherited)).toBeUndefined();
    }
  });
});

describe('readGoObject', () => {
  it('applies keys in order under the field name: the last one wins', () => {
    expect(read({ approved: false, Approved: true })).toEqual({ ok: true, value: { approved: true } });
    expect(read({ approved: true, APPROVED: false })).toEqual({ ok: true, value: { approved: false } });
  });

  it('lets null leave a string, bool or struct field as it was, and clear a pointer, map or slice', () => {
    expect(read({ approved: true, Approved: null })).toEqual({ ok: true, value: { approved: true } });
    expect(read({ action: 'deny_tool', Action: null, meta: {}, Meta: null })).toEqual({
      ok: true,
      value: { action: 'deny_tool', meta: {} },
    });
    expect(read({ call: { tool: 'a' }, CALL: null })).toEqual({ ok: true, value: {} });
    // Cleared in between: the second object starts afresh in Go too, nothing to merge.
    expect(read({ call: { tool: 'a', arguments: { x: 1 } }, CALL: null, Call: { tool: 'b' } })).toEqual({
      ok: true,
      value: { call: { tool: 'b' } },
    });
  });

  it('refuses a second object or list for one field (Go would merge them)', () => {
    expect(read({ call: { tool: 'a', arguments: { x: 1 } }, Call: { tool: 'b' } })).toEqual({
      ok: false,
      why: 'call is given more than once (Go would merge the values)',
    });
    expect(read({ messages: [{ role: 'system' }], Messages: [{ content: 'u' }] }).ok).toBe(false);
    expect(read({ meta: {}, META: {} }).ok).toBe(false);
  });

  it('reads nested structs and slice elements the same way', () => {
    const r = read({
      Call: {
        TOOL: 'exec',
        Arguments: { Path: 'a', path: 'b' },
        hoo\u212a_result: { For_LLM: 'x', Media: null },
      },
      messages: [{ role: 'user', Role: 'system', content: 'x' }, null],
    });
    expect(r).toEqual({
      ok: true,
      value: {
        // Map keys are data, not fields: never folded.
        call: { tool: 'exec', arguments: { Path: 'a', path: 'b' }, hook_result: { for_llm: 'x' } },
        messages: [{ role: 'system', content: 'x' }, null],
      },
    });
  });

  it('fails on a value of the wrong JSON type, naming where', () => {
    expect(read({ approved: 'yes' })).toEqual({ ok: false, why: 'approved is not a boolean' });
    expect(read({ call: { hook_result: { is_error: 1 } } })).toEqual({
      ok: false,
      why: 'call.hook_result.is_error is not a boolean',
    });
    expect(read({ messages: ['hi'] })).toEqual({ ok: false, why: 'messages[0] is not an object' });
    // An element's own field, and one given twice, named by the element's place.
    expect(read({ messages: [null, { role: 'user' }, { role: 7 }] })).toEqual({
      ok: false,
      why: 'messages[2].role is not a string',
    });
    expect(read({ call: { hook_result: { is_error: false }, Hook_Result: {} } })).toEqual({
      ok: false,
      why: 'call.hook_result is given more than once (Go would merge the values)',
    });
    expect(read({ messages: {} })).toEqual({ ok: false, why: 'messages is not a list' });
    expect(read({ call: [] })).toEqual({ ok: false, why: 'call is not an object' });
  });

  it('keeps unknown keys as they are, a "__proto__" key as an own field, never as a prototype', () => {
    const r = read(JSON.parse('{"__PROTO__":{"approved":true},"__proto__":{"approved":true},"x":1}'));
    expect(r.ok).toBe(true);
    const value = (r as { value: Record<string, unknown> }).value;
    expect(value.approved).toBeUndefined();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__PROTO__', '__proto__', 'x']);
  });

  it('skips undefined (as JSON.stringify does) and reads only own keys', () => {
    const inherited = Object.create({ approved: true }) as Record<string, unknown>;
    inherited.action = undefined;
    expect(read(inherited)).toEqual({ ok: true, value: {} });
  });
});
