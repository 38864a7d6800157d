import { describe, expect, it } from 'vitest';
import {
  locateParams,
  paramsTextOf,
  MIN_REMEMBERED_UNITS,
  rememberParamsText,
  trailingParams,
} from '../../src/core/params-text.js';

/** Short messages are not remembered (see MIN_REMEMBERED_UNITS): trailing spaces lengthen them. */
const padded = (text: string) => text + ' '.repeat(MIN_REMEMBERED_UNITS);

describe('locateParams', () => {
  it.each([
    ['last member', '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}', '{"a":1}'],
    ['first member', '{"params":{"a":[1,{"b":"}"}]},"id":1,"method":"m"}', '{"a":[1,{"b":"}"}]}'],
    ['spaces kept', '{ "id" : 1 , "params" : { "a" : 1.0 , "b" : "x" } }', '{ "a" : 1.0 , "b" : "x" }'],
    ['escaped key', '{"id":1,"par\\u0061ms":{"a":1}}', '{"a":1}'],
    ['quotes and backslashes in strings', '{"id":"\\"","params":{"s":"a\\\\\\"b{["}}', '{"s":"a\\\\\\"b{["}'],
    [
      'a "params" string elsewhere',
      '{"id":1,"method":"params","x":{"params":{}},"params":{"k":2}}',
      '{"k":2}',
    ],
    [
      'digits as written',
      '{"id":1,"params":{"n":12345678901234567890,"e":1E2,"z":-0}}',
      '{"n":12345678901234567890,"e":1E2,"z":-0}',
    ],
  ])('%s', (_n, text, params) => {
    expect(JSON.parse(params)).toEqual(JSON.parse(text).params);
    expect(locateParams(text)).toBe(params);
  });

  it.each([
    ['no params', '{"id":1,"method":"m"}'],
    ['params not an object', '{"id":1,"params":[1]}'],
    ['params twice', '{"id":1,"params":{"a":1},"params":{"b":2}}'],
    ['not an object', '[{"params":{}}]'],
  ])('none: %s', (_n, text) => {
    expect(locateParams(text)).toBeUndefined();
  });
});

describe('trailingParams (envelope members only, params last)', () => {
  it.each([
    ['compact', '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,{"b":"}"}]}}', '{"a":[1,{"b":"}"}]}'],
    ['spaces', '{ "id" : 1 , "params" : { "a" : 1 } }\t', '{ "a" : 1 }'],
    ['escapes elsewhere', '{"id":1,"params":{"s":"\\u003c\\"}"}}', '{"s":"\\u003c\\"}"}'],
  ])('%s', (_n, text, params) => {
    expect(trailingParams(text)).toBe(params);
  });

  it.each([
    ['params twice', '{"id":1,"params":{"a":1},"params":{"b":2}}'],
    ['params spelt with an escape too', '{"id":1,"params":{"a":1},"par\\u0061ms":{"b":2}}'],
    ['"params" inside the params', '{"id":1,"params":{"x":"params"}}'],
    ['a repeated id after the params', '{"id":1,"params":{"a":1},"id":2}'],
  ])('not shown, so left to the full walk: %s', (_n, text) => {
    expect(trailingParams(text)).toBeUndefined();
  });

  it('paramsTextOf agrees with JSON.parse on every one of them', () => {
    for (const text of [
      '{"id":1,"params":{"a":1},"params":{"b":2}}',
      '{"id":1,"params":{"a":1},"par\\u0061ms":{"b":2}}',
      '{"id":1,"params":{"x":"params"}}',
      '{"id":1,"params":{"a":1},"id":2}',
      '{"params":{"a":1},"id":1}',
    ]) {
      const msg = JSON.parse(text);
      rememberParamsText(msg, padded(text));
      const got = paramsTextOf(msg.params);
      if (got !== undefined) expect(JSON.parse(got)).toEqual(msg.params);
    }
  });
});

describe('paramsTextOf', () => {
  it('gives the text only for the very object JSON.parse made, once', () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"é😀","b":[1,2]}}';
    const msg = JSON.parse(text);
    rememberParamsText(msg, padded(text));
    expect(paramsTextOf({ ...msg.params })).toBeUndefined();
    expect(paramsTextOf(msg.params)).toBe('{"a":"é😀","b":[1,2]}');
    expect(paramsTextOf(msg.params)).toBeUndefined();
  });

  it('refuses params with a line break between tokens (it would split the NDJSON line)', () => {
    const text = '{"id":1,"params":{\n"a":1}}';
    const msg = JSON.parse(text);
    rememberParamsText(msg, padded(text));
    expect(paramsTextOf(msg.params)).toBeUndefined();
  });

  it('leaves a short message to JSON.stringify', () => {
    const text = '{"id":1,"params":{"a": 1}}';
    const msg = JSON.parse(text);
    rememberParamsText(msg, text);
    expect(paramsTextOf(msg.params)).toBeUndefined();
  });

  it('keeps the text out of sight of whatever reads the params, and copies of them', () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}';
    const msg = JSON.parse(text);
    rememberParamsText(msg, padded(text));
    expect(Object.keys(msg.params)).toEqual(['a']);
    expect(JSON.stringify(msg.params)).toBe('{"a":1}');
    expect(paramsTextOf(Object.assign({}, msg.params))).toBeUndefined();
    expect(paramsTextOf(msg.params)).toBe('{"a":1}');
  });

  it('leaves params it cannot extend to JSON.stringify, without throwing', () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}';
    const msg = JSON.parse(text);
    Object.freeze(msg.params);
    expect(() => rememberParamsText(msg, padded(text))).not.toThrow();
    expect(paramsTextOf(msg.params)).toBeUndefined();
  });

  it('ignores what is not an object', () => {
    rememberParamsText(undefined, '{}');
    expect(paramsTextOf(undefined)).toBeUndefined();
    expect(paramsTextOf('x')).toBeUndefined();
  });
});
