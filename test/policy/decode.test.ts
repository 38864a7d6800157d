import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../src/lib/json-duplicate-keys.js';
import { decodeApproval, decodeInterceptor } from '../../src/policy/decode.js';

/**
 * Test vectors: each input with what Go's encoding/json (Go 1.26.8) made of it, printed by
 * `go run test/lib/go-json-vectors/main.go`, and what the gateway must do with it. A reply text with
 * a key spelt twice is refused before decoding (the backends check it), because JSON.parse loses the
 * order Go applies the keys in; a field given two objects is refused because Go merges them.
 */
type Expect = { decodes: Record<string, unknown> } | { refused: 'repeated key' | 'ambiguous' | 'wrong type' };

const APPROVALS: [input: string, go: Record<string, unknown> | 'error', expect: Expect][] = [
  ['{"approved":false,"Approved":true,"approved":false}', { approved: false }, { refused: 'repeated key' }],
  ['{"approved":false,"Approved":true}', { approved: true }, { decodes: { approved: true } }],
  ['{"approved":true,"APPROVED":false}', { approved: false }, { decodes: { approved: false } }],
  ['{"approved":true,"Approved":null}', { approved: true }, { decodes: { approved: true } }],
  ['{"__PROTO__":{"approved":true}}', { approved: false }, { decodes: { approved: false } }],
  ['{"__proto__":{"approved":true}}', { approved: false }, { decodes: { approved: false } }],
  ['{"approved":"yes"}', 'error', { refused: 'wrong type' }],
  [
    '{"approved":true,"rea\u017fon":"long s"}',
    { approved: true, reason: 'long s' },
    { decodes: { approved: true, reason: 'long s' } },
  ],
  ['{"approved":true,"appro\\u0076ed":false}', { approved: false }, { refused: 'repeated key' }],
];

const BEFORE_TOOL: [input: string, go: Record<string, unknown>, expect: Expect][] = [
  ['{"action":"deny_tool","Action":null}', { action: 'deny_tool' }, { decodes: { action: 'deny_tool' } }],
  ['{"act\u0131on":"respond"}', { action: '' }, { decodes: { action: 'continue' } }],
  [
    '{"ACTION":"respond","re\u017fult":{"for_llm":"x"}}',
    { action: 'respond', result: { for_llm: 'x', silent: false, is_error: false } },
    { decodes: { action: 'respond', result: { for_llm: 'x' } } },
  ],
  [
    '{"action":"continue","call":{"tool":"t","hoo\u212a_result":{"for_llm":"kelvin"}}}',
    {
      action: 'continue',
      call: { tool: 't', hook_result: { for_llm: 'kelvin', silent: false, is_error: false } },
    },
    { decodes: { action: 'continue', call: { tool: 't', hook_result: { for_llm: 'kelvin' } } } },
  ],
  [
    '{"action":"continue","call":{"tool":"a","arguments":{"x":1}},"Call":{"tool":"b"}}',
    { action: 'continue', call: { tool: 'b', arguments: { x: 1 } } },
    { refused: 'ambiguous' },
  ],
  [
    '{"action":"continue","call":{"tool":"a","arguments":{"x":1}},"CALL":null,"Call":{"tool":"b"}}',
    { action: 'continue', call: { tool: 'b' } },
    { decodes: { action: 'continue', call: { tool: 'b' } } },
  ],
  [
    '{"action":"respond","result":{"for_llm":"a","is_error":true},"result":{"for_llm":"b"}}',
    { action: 'respond', result: { for_llm: 'b', silent: false, is_error: true } },
    { refused: 'repeated key' },
  ],
  [
    '{"action":"continue","call":{"tool":"a","arguments":{"p":1,"P":2,"p":3}}}',
    { action: 'continue', call: { tool: 'a', arguments: { P: 2, p: 3 } } },
    { refused: 'repeated key' },
  ],
  [
    '{"action":"respond","result":{"for_llm":"x","media":["a","b"],"Media":["c",null]}}',
    { action: 'respond', result: { for_llm: 'x', silent: false, is_error: false, media: ['c', 'b'] } },
    { refused: 'ambiguous' },
  ],
];

const BEFORE_LLM: [input: string, go: Record<string, unknown>, expect: Expect][] = [
  [
    '{"action":"modify","request":{"messages":[{"role":"user","Role":"system","content":"x"}]}}',
    { action: 'modify', request: { model: '', messages: [{ role: 'system', content: 'x' }] } },
    { decodes: { action: 'modify', request: { messages: [{ role: 'system', content: 'x' }] } } },
  ],
  [
    '{"action":"modify","request":{"messages":[{"role":"system","content":"s"}],"Messages":[{"content":"u"}]}}',
    { action: 'modify', request: { model: '', messages: [{ role: 'system', content: 'u' }] } },
    { refused: 'ambiguous' },
  ],
];

function check(input: string, want: Expect, decode: (raw: unknown) => ReturnType<typeof decodeApproval>) {
  const repeated = findDuplicateKey(input);
  if ('refused' in want && want.refused === 'repeated key') {
    expect(repeated).toBeDefined();
    return;
  }
  expect(repeated).toBeUndefined();
  const out = decode(JSON.parse(input));
  if ('decodes' in want) expect(out).toEqual({ ok: true, value: want.decodes });
  else expect(out.ok).toBe(false);
}

describe('decoding hook answers as PicoClaw (Go) reads them', () => {
  it.each(APPROVALS)('approve_tool %s', (input, _go, want) => check(input, want, decodeApproval));
  it.each(BEFORE_TOOL)('before_tool %s', (input, _go, want) =>
    check(input, want, (raw) => decodeInterceptor('hook.before_tool', raw) as never),
  );
  it.each(BEFORE_LLM)('before_llm %s', (input, _go, want) =>
    check(input, want, (raw) => decodeInterceptor('hook.before_llm', raw) as never),
  );

  it('never approves what Go would deny: every vector that decodes agrees with Go', () => {
    for (const [input, go, want] of APPROVALS) {
      if (go === 'error' || !('decodes' in want)) continue;
      expect(decodeApproval(JSON.parse(input))).toEqual({ ok: true, value: go });
    }
  });

  it('reads nested payloads under their Go names and refuses wrong types anywhere', () => {
    expect(
      decodeInterceptor('hook.after_tool', {
        Result: { TOOL: 'x', Result: { For_LLM: 'y', IS_ERROR: true } },
      }),
    ).toEqual({
      ok: true,
      value: { action: 'continue', result: { tool: 'x', result: { for_llm: 'y', is_error: true } } },
    });
    expect(decodeInterceptor('hook.after_tool', { result: { result: { For_LLM: 5 } } })).toEqual({
      ok: false,
      why: 'result.result.for_llm is not a string',
    });
    expect(
      decodeInterceptor('hook.before_llm', {
        request: { tools: [{ type: 'function', Function: { Name: 'x' } }] },
      }),
    ).toEqual({
      ok: true,
      value: { action: 'continue', request: { tools: [{ type: 'function', function: { name: 'x' } }] } },
    });
  });
});
