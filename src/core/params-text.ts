import {
  QUOTE,
  COLON,
  COMMA,
  OPEN_OBJECT,
  CLOSE_OBJECT,
  OPEN_ARRAY,
  CLOSE_ARRAY,
  isJsonSpace,
  skipJsonSpace,
  closingQuote,
  keyText,
} from '../lib/json-scan.js';

/**
 * The `params` of a JSON-RPC message as the sender wrote them, so that a request whose params the
 * gateway passes on unchanged goes to a stdio hook without being parsed into objects and
 * stringified again (for a 64 KiB before_llm, JSON.stringify was the largest single cost of a call).
 *
 * Whoever parses a message registers its text against the params object JSON.parse made
 * (`rememberParamsText`); whoever serialises a call asks for the text of the object it was given
 * (`paramsTextOf`). The lookup is by identity: params the grants changed are new objects (see
 * policy/minimise.ts: it never mutates), so they are never found and are stringified as before.
 * Nothing may mutate a registered params object.
 *
 * The text is located only when asked for, and not given when `params` is given twice at the top
 * level or the text has a line break between tokens (it would split an NDJSON line). The hook then
 * reads the params as the host wrote them, as it would if the host had spawned it: numbers keep
 * their digits, escapes their spelling. A key repeated inside them reaches the hook repeated (a Go
 * hook merges two objects given for one field, JSON.parse keeps the last); the gateway's checks of
 * the hook's answer read the request as JSON.parse does, either way. Looking for repeated keys
 * as well would cost about what the JSON.stringify it replaces costs.
 */
interface Received {
  text: string;
  /** The message has no members but the envelope's, params last (see trailingParams). */
  paramsLast: boolean;
}

/**
 * A received message's text to find the params in, or the params' own text (from a reader that
 * already knows where they are: see lazy-params.ts), kept on the params object itself under a
 * symbol no JSON text can spell, not enumerable: JSON.stringify, Object.keys and spreads do not
 * see it, so a changed copy never carries it. It was a WeakMap from params to text, whose table
 * lives in the old generation: V8 kept what its entries reached through young collections and
 * promoted it, the whole message included (20 full collections per 20,000 parses of a 64 KiB
 * message, against 1 without it).
 */
const TEXT = Symbol('hookgate.params-text');
type Holder = { [TEXT]?: Received | string };

function textOf(params: object): Received | string | undefined {
  return Object.hasOwn(params, TEXT) ? (params as Holder)[TEXT] : undefined;
}

function keepText(params: object, text: Received | string): void {
  if (!Object.isExtensible(params)) return;
  Object.defineProperty(params, TEXT, { value: text, writable: true, configurable: true, enumerable: false });
}

const ENVELOPE: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Below this many UTF-16 units a message is not remembered: JSON.stringify of its params (about
 * 1 µs for a 336-byte before_tool) costs less than finding them and the bookkeeping (about 3 µs in
 * a profile of sequential small calls), and such a hook sees the params as JSON.parse read them.
 */
export const MIN_REMEMBERED_UNITS = 2048;

/** Remembers that `message`, a JSON-RPC request JSON.parse made of `text`, came as that text. */
export function rememberParamsText(message: unknown, text: string): void {
  if (text.length < MIN_REMEMBERED_UNITS) return;
  if (typeof message !== 'object' || message === null) return;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null || Object.hasOwn(params, TEXT)) return;
  const keys = Object.keys(message);
  let paramsLast = keys[keys.length - 1] === 'params';
  for (const key of keys) if (!ENVELOPE.has(key)) paramsLast = false;
  keepText(params, { text, paramsLast });
}

/** `{"jsonrpc":"2.0","id":…,"method":…,"params":` — what precedes the params of a request's text. */
export function requestHead(id: string | number, method: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":`;
}

/**
 * A request as JSON text: the params as they were received when nothing changed them, else
 * serialised; either way the same members in the same order.
 */
export function requestJson(id: string | number, method: string, params: unknown): string {
  const received = paramsTextOf(params);
  if (received === undefined) return JSON.stringify({ jsonrpc: '2.0', id, method, params });
  return `${requestHead(id, method)}${received}}`;
}

/**
 * Remembers that `params` was read from `json`, its own text, which a validator showed to be a
 * JSON object with no character below U+0020 (so no line break either): nothing to locate.
 */
export function rememberParamsJson(params: object, json: string): void {
  keepText(params, json);
}

/**
 * The JSON text of `params` as it was received, or undefined when it must be serialised.
 * Forgotten once asked for: a call is serialised once, and the message need not outlive it.
 */
export function paramsTextOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const received = textOf(params);
  if (received === undefined) return undefined;
  (params as Holder)[TEXT] = undefined;
  if (typeof received === 'string') return received;
  const message = received.text;
  const text = (received.paramsLast ? trailingParams(message) : undefined) ?? locateParams(message);
  if (text === undefined) return undefined;
  if (text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) return undefined;
  return text;
}

/**
 * The params of a request that JSON.parse read with the envelope's members only and `params` last
 * (what every encoder writes), found without walking them: the value from the one top-level
 * `"params"` key to the object's last `}` but one. That holds when the text has `params` once and
 * no escape that could spell another such key (\u0061 for a, …): then no member follows params
 * except repeated jsonrpc, id or method, whose last values (the ones JSON.parse keeps) are strings
 * or numbers, so the text would not end in `}}`. Undefined whenever that is not shown.
 */
export function trailingParams(message: string): string | undefined {
  const literal = message.indexOf('"params"');
  // Any later "params" at all, even in a string, sends the message the long way: searching for the
  // word is several times faster than for the quoted key (quotes are everywhere in JSON).
  if (literal < 0 || message.indexOf('params', literal + 8) >= 0) return undefined;
  if (message.indexOf('\\u006') >= 0 || message.indexOf('\\u007') >= 0) return undefined;
  const at = topLevelMember(message, 'params');
  if (at === undefined || at.key !== literal) return undefined;
  let end = message.length - 1;
  while (end > at.value && isJsonSpace(message.charCodeAt(end))) end--;
  if (message.charCodeAt(end) !== CLOSE_OBJECT) return undefined;
  end--;
  while (end > at.value && isJsonSpace(message.charCodeAt(end))) end--;
  if (message.charCodeAt(end) !== CLOSE_OBJECT || message.charCodeAt(at.value) !== OPEN_OBJECT)
    return undefined;
  return message.slice(at.value, end + 1);
}

/** Where the first top-level member named `name` starts (its key) and where its value starts. */
function topLevelMember(message: string, name: string): { key: number; value: number } | undefined {
  const n = message.length;
  let i = skipJsonSpace(message, 0);
  if (message.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i = skipJsonSpace(message, i + 1);
  while (i < n) {
    if (message.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = closingQuote(message, i + 1);
    if (keyEnd < 0) return undefined;
    const key = i;
    const keyName = keyText(message, i, keyEnd);
    i = skipJsonSpace(message, keyEnd + 1);
    if (message.charCodeAt(i) !== COLON) return undefined;
    const value = skipJsonSpace(message, i + 1);
    if (keyName === name) return { key, value };
    const end = skipValue(message, value);
    if (end < 0) return undefined;
    i = skipJsonSpace(message, end);
    if (message.charCodeAt(i) !== COMMA) return undefined;
    i = skipJsonSpace(message, i + 1);
  }
  return undefined;
}

/**
 * The text of the top-level `params` member of the JSON object `message` when it is an object and
 * given once; undefined otherwise. Not a validator: `message` is text JSON.parse accepted. Strings
 * are skipped with indexOf, so the cost follows the number of tokens outside strings.
 */
export function locateParams(message: string): string | undefined {
  const n = message.length;
  let i = skipJsonSpace(message, 0);
  if (message.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  let found: string | undefined;
  i = skipJsonSpace(message, i + 1);
  if (message.charCodeAt(i) === CLOSE_OBJECT) return undefined;
  while (i < n) {
    if (message.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = closingQuote(message, i + 1);
    if (keyEnd < 0) return undefined;
    const key = keyText(message, i, keyEnd);
    i = skipJsonSpace(message, keyEnd + 1);
    if (message.charCodeAt(i) !== COLON) return undefined;
    const start = skipJsonSpace(message, i + 1);
    const end = skipValue(message, start);
    if (end < 0) return undefined;
    if (key === 'params') {
      if (found !== undefined) return undefined;
      if (message.charCodeAt(start) !== OPEN_OBJECT) return undefined;
      found = message.slice(start, end);
    }
    i = skipJsonSpace(message, end);
    const c = message.charCodeAt(i);
    if (c === CLOSE_OBJECT) return found;
    if (c !== COMMA) return undefined;
    i = skipJsonSpace(message, i + 1);
  }
  return undefined;
}

/** Index just past the value that starts at `from`, or -1. */
function skipValue(text: string, from: number): number {
  const c = text.charCodeAt(from);
  if (c === QUOTE) {
    const end = closingQuote(text, from + 1);
    return end < 0 ? -1 : end + 1;
  }
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = closingQuote(text, i + 1);
        if (i < 0) return -1;
      } else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if (d === CLOSE_OBJECT || d === CLOSE_ARRAY) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next separator or space.
  let i = from;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY || isJsonSpace(d)) break;
    i++;
  }
  return i === from ? -1 : i;
}
