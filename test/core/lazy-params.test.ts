import { afterEach, describe, expect, it, vi } from 'vitest';
import { LAZY_MIN_UNITS, lazyMessage } from '../../src/core/lazy-params.js';
import { paramsTextOf } from '../../src/core/params-text.js';
import { MAX_DEPTH } from '../../src/lib/json-validate.js';
import { ErrorCode, parseMessage } from '../../src/protocol/jsonrpc.js';

/** A string member that takes a message past LAZY_MIN_UNITS, so each case is decided on its shape. */
const PAD = `"pad":"${'x'.repeat(LAZY_MIN_UNITS)}"`;

const request = (params: string) => `{"jsonrpc":"2.0","id":7,"method":"hook.before_llm","params":${params}}`;

/** Spaces, escapes, integer-like keys (ordered first by JSON.parse) and digits beyond a double's. */
const PARAMS = String.raw`{ "model" : "gpt-4o" , "messages" : [ {"role":"user","content":"h\u00e9llo  \"q\" \/ \\ 😀 \ud800"} ] , "10":{"ten":10}, "2" : [2], "n":   1.50E+2, "big": 12345678901234567890, "empty" : {  }, ${PAD} }`;
const TEXT = request(PARAMS);

function lazyParams(text: string): Record<string, unknown> {
  const message = lazyMessage(text);
  expect(message).toBeDefined();
  return message!.params as Record<string, unknown>;
}

const isAccessor = (object: object, key: string) => {
  const d = Object.getOwnPropertyDescriptor(object, key);
  return d !== undefined && d.get !== undefined && !('value' in d);
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('lazyMessage', () => {
  it('takes messages from LAZY_MIN_UNITS units on', () => {
    const small = request('{"model":"m"}');
    expect(lazyMessage(small)).toBeUndefined();
    const short = small + ' '.repeat(LAZY_MIN_UNITS - 1 - small.length);
    expect(short.length).toBe(LAZY_MIN_UNITS - 1);
    expect(lazyMessage(short)).toBeUndefined();
    expect(lazyMessage(`${short} `)).toEqual(JSON.parse(small));
  });

  it('gives the envelope parsed and params whose members are accessors until read', () => {
    const message = lazyMessage(TEXT)!;
    const parsed = JSON.parse(TEXT);
    expect(message.jsonrpc).toBe('2.0');
    expect(message.id).toBe(7);
    expect(message.method).toBe('hook.before_llm');
    expect(Object.keys(message)).toEqual(Object.keys(parsed));
    const params = message.params as Record<string, unknown>;
    expect(Object.keys(params)).toEqual(Object.keys(parsed.params));
    expect(Object.keys(params)).toEqual(['2', '10', 'model', 'messages', 'n', 'big', 'empty', 'pad']);
    for (const key of Object.keys(params)) expect(isAccessor(params, key), key).toBe(true);

    const messages = params.messages;
    expect(messages).toEqual(parsed.params.messages);
    expect(Object.getOwnPropertyDescriptor(params, 'messages')).toEqual({
      value: messages,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(params.messages).toBe(messages);
    // Reading one member leaves the others unparsed.
    expect(isAccessor(params, 'model')).toBe(true);
  });

  it('gives every lazy object the same accessor for a member name, not one made per object', () => {
    // An accessor made per object gives each object a hidden class of its own, kept in the old
    // generation with the message's text: every large message was promoted.
    const a = lazyParams(TEXT);
    const b = lazyParams(request(PARAMS.replace('gpt-4o', 'gpt-5')));
    for (const key of ['model', 'messages', 'pad']) {
      const da = Object.getOwnPropertyDescriptor(a, key)!;
      const db = Object.getOwnPropertyDescriptor(b, key)!;
      expect(da.get).toBeTypeOf('function');
      expect(da.get).toBe(db.get);
      expect(da.set).toBe(db.set);
    }
    expect([a.model, b.model]).toEqual(['gpt-4o', 'gpt-5']);
    // The source each reads from is its own, and no key, spread or JSON shows it.
    expect(Object.keys(a)).toEqual(Object.keys(JSON.parse(PARAMS.replace(PAD, '"pad":0'))));
    expect(JSON.stringify({ ...b })).toBe(
      JSON.stringify(JSON.parse(request(PARAMS.replace('gpt-4o', 'gpt-5'))).params),
    );
  });

  it('parses a member once, however often it is read', () => {
    const params = lazyParams(TEXT);
    const parse = vi.spyOn(JSON, 'parse');
    const first = params['10'];
    expect(params['10']).toBe(first);
    expect(params['10']).toEqual({ ten: 10 });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(parse).toHaveBeenCalledWith('{"ten":10}');
  });

  it('reads as the object JSON.parse makes: spread, stringify, keys, in', () => {
    const parsed = JSON.parse(TEXT);
    const message = lazyMessage(TEXT)!;
    expect(JSON.stringify(message)).toBe(JSON.stringify(parsed));
    const params = message.params as Record<string, unknown>;
    for (const key of Object.keys(params)) expect(isAccessor(params, key), key).toBe(false);
    expect({ ...lazyParams(TEXT) }).toEqual(parsed.params);
    expect(message).toEqual(parsed);
    expect('model' in params && 'big' in params && !('x' in params)).toBe(true);
    expect(params.big).toBe(Number('12345678901234567890'));
    expect(params.n).toBe(150);
    expect((params.messages as { content: string }[])[0].content).toBe('héllo  "q" / \\ 😀 \ud800');
  });

  it('takes assignment before and after a member is read', () => {
    const params = lazyParams(TEXT);
    const parse = vi.spyOn(JSON, 'parse');
    params.model = 'x';
    expect(params.model).toBe('x');
    expect(Object.getOwnPropertyDescriptor(params, 'model')).toEqual({
      value: 'x',
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(parse).not.toHaveBeenCalled();

    expect(params.n).toBe(150);
    params.n = 1;
    expect(params.n).toBe(1);
    params.added = true;
    expect(Object.keys(params).slice(-2)).toEqual(['pad', 'added']);
  });

  it('keeps a __proto__ member an own data member, as JSON.parse does', () => {
    const text = request(`{"__proto__":{"polluted":true},${PAD}}`);
    const params = lazyParams(text);
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(isAccessor(params, '__proto__')).toBe(true);
    // A read through the key, as a check of the message would do it: the own accessor, not the prototype's.
    const key = '__proto__';
    expect(params[key]).toEqual({ polluted: true });
    expect(Object.getOwnPropertyDescriptor(params, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect((params as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(params).toEqual(JSON.parse(text).params);
  });

  it('registers the params text as written, given once', () => {
    const params = lazyParams(TEXT);
    expect(paramsTextOf(params)).toBe(PARAMS);
    expect(paramsTextOf(params)).toBeUndefined();

    // Reading the members first changes nothing of the text.
    const read = lazyParams(TEXT);
    expect({ ...read }).toEqual(JSON.parse(PARAMS));
    expect(paramsTextOf(read)).toBe(PARAMS);
  });

  it('finds params anywhere among the envelope members, with spaces around the message', () => {
    const params = `{ ${PAD} , "a" : "\\\\" }`;
    const text = `  { "params" : ${params} , "method" : "m" , "jsonrpc" : "2.0" }  `;
    const message = lazyMessage(text)!;
    expect(message).toEqual(JSON.parse(text));
    expect(Object.keys(message)).toEqual(['params', 'method', 'jsonrpc']);
    expect(paramsTextOf(message.params)).toBe(params);
  });

  const deep = '['.repeat(MAX_DEPTH + 1) + '0' + ']'.repeat(MAX_DEPTH + 1);
  it.each([
    // [name, text, whether JSON.parse accepts it]
    ['a line feed between tokens', request(`{"model":"m",\n${PAD}}`), true],
    ['a tab between tokens', `{"jsonrpc":"2.0",\t"id":1,"method":"m","params":{${PAD}}}`, true],
    ['a carriage return and line feed after the message', `${request(`{${PAD}}`)}\r\n`, true],
    ['a repeated top-level key', `{"jsonrpc":"2.0","id":1,"id":2,"method":"m","params":{${PAD}}}`, true],
    ['params twice', `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1},"params":{${PAD}}}`, true],
    ['a repeated params key', request(`{"model":"a",${PAD},"model":"b"}`), true],
    ['an extra top-level member', `{"jsonrpc":"2.0","id":1,"method":"m","x":1,"params":{${PAD}}}`, true],
    [
      'a top-level __proto__ member',
      `{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{},"params":{${PAD}}}`,
      true,
    ],
    ['a response', `{"jsonrpc":"2.0","id":1,"result":{${PAD}}}`, true],
    ['params an array', request(`[{${PAD}}]`), true],
    ['params a string', request(`"${'x'.repeat(LAZY_MIN_UNITS)}"`), true],
    ['params null', `{"jsonrpc":"2.0","id":1,"method":"m","params":null,${PAD}}`, true],
    ['no params', `{"jsonrpc":"2.0","id":"${'x'.repeat(LAZY_MIN_UNITS)}","method":"m"}`, true],
    ['a top-level key with an escape', `{"jsonrpc":"2.0","id":1,"method":"m","par\\u0061ms":{${PAD}}}`, true],
    ['a params key with an escape', request(`{"mod\\u0065l":"m",${PAD}}`), true],
    ['a params member nested deeper than MAX_DEPTH', request(`{"deep":${deep},${PAD}}`), true],
    ['a batch', `[${request(`{${PAD}}`)}]`, true],
    ['a trailing comma in params', request(`{${PAD},}`), false],
    ['an unterminated string', request(`{${PAD}`).slice(0, -3), false],
    ['a bad escape', request(`{"a":"\\x",${PAD}}`), false],
    ['a leading zero', request(`{"a":01,${PAD}}`), false],
    ['a raw control character in a string', request(`{"a":"\u0001",${PAD}}`), false],
    ['garbage after the message', `${request(`{${PAD}}`)} x`, false],
    ['a second message after the first', `${request(`{${PAD}}`)} {}`, false],
  ])('gives nothing for %s, and parseMessage reads it as without the option', (_name, text, valid) => {
    expect(text.length).toBeGreaterThanOrEqual(LAZY_MIN_UNITS);
    let accepted = true;
    try {
      JSON.parse(text);
    } catch {
      accepted = false;
    }
    expect(accepted).toBe(valid);
    expect(lazyMessage(text)).toBeUndefined();

    const lazy = parseMessage(text, { lazyParams: true });
    expect(lazy).toEqual(parseMessage(text));
    if (!valid) expect(lazy.ok ? undefined : lazy.response.error.code).toBe(ErrorCode.ParseError);
    if (lazy.ok) {
      const params = (lazy.message as { params?: unknown }).params;
      if (typeof params === 'object' && params !== null) {
        for (const key of Object.keys(params)) expect(isAccessor(params, key), key).toBe(false);
      }
    }
  });
});

describe('parseMessage with lazyParams', () => {
  it('gives a large request with lazy params, and ordinary ones without the option', () => {
    const parsed = JSON.parse(TEXT);

    const lazy = parseMessage(TEXT, { lazyParams: true });
    expect(lazy.ok).toBe(true);
    const lazyParamsObject = (lazy as { message: { params: Record<string, unknown> } }).message.params;
    expect(isAccessor(lazyParamsObject, 'messages')).toBe(true);
    expect(lazyParamsObject.messages).toEqual(parsed.params.messages);
    expect(isAccessor(lazyParamsObject, 'messages')).toBe(false);

    const plain = parseMessage(TEXT);
    expect(plain.ok).toBe(true);
    const plainParams = (plain as { message: { params: Record<string, unknown> } }).message.params;
    for (const key of Object.keys(plainParams)) expect(isAccessor(plainParams, key), key).toBe(false);
    expect(plain).toEqual(lazy);
    expect(plain).toEqual({ ok: true, message: parsed });
  });

  it('refuses bad JSON after good text as a parse error', () => {
    const text = `${request(`{${PAD}}`).slice(0, -1)},}`;
    expect(lazyMessage(text)).toBeUndefined();
    const outcome = parseMessage(text, { lazyParams: true });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? undefined : outcome.response.error.code).toBe(ErrorCode.ParseError);
  });
});
