import { controlFree, type JsonMember, JsonValidator } from '../lib/json-validate.js';
import { rememberParamsJson } from './params-text.js';

/**
 * A large request parsed as far as the gateway needs before it asks the hook: the whole text is
 * checked as JSON (lib/json-validate.ts) and the envelope read, but each member of `params` is
 * parsed only when something reads it. A 64 KiB before_llm forwarded to a stdio hook as the host
 * wrote it (params-text.ts) and answered `continue` is then never built into objects at all: its
 * JSON.parse, and the garbage collector's work on a conversation held while the hook thinks (it
 * outlives several young-generation collections and is copied and promoted), were most of what
 * the gateway spent on such a call.
 *
 * The params object is an ordinary object whose members are accessors until first read, when each
 * becomes the data member JSON.parse would have made (same value, same key order). Reading,
 * spreading, `Object.keys`, `in`, JSON.stringify and assignment behave as on the parsed object;
 * only a property descriptor shows the difference before a member is read.
 */

/** Below this many UTF-16 units a message is parsed at once: the accessors would cost more. */
export const LAZY_MIN_UNITS = 8192;

const ENVELOPE: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method']);

/**
 * The JSON-RPC message `text` is, with lazily parsed params, when it is a request or notification
 * of at least LAZY_MIN_UNITS units whose params are an object and that the validator can show is
 * JSON with only envelope members, none repeated (also none repeated inside params); undefined
 * otherwise, and the caller parses it whole.
 */
export function lazyMessage(text: string): Record<string, unknown> | undefined {
  if (text.length < LAZY_MIN_UNITS || !controlFree(text)) return undefined;
  const validator = new JsonValidator(text);
  const top = validator.members(validator.skipSpace(0), 'params');
  if (top === undefined || validator.skipSpace(top.end) !== text.length) return undefined;
  const message: Record<string, unknown> = {};
  let params: JsonMember | undefined;
  for (const member of top.members) {
    if (Object.hasOwn(message, member.key)) return undefined;
    if (member.key === 'params') {
      if (member.members === undefined || hasRepeatedKey(member.members)) return undefined;
      params = member;
      message.params = undefined;
    } else if (ENVELOPE.has(member.key)) {
      message[member.key] = JSON.parse(text.slice(member.start, member.end));
    } else {
      return undefined;
    }
  }
  if (params?.members === undefined) return undefined;
  const json = text.slice(params.start, params.end);
  const lazy = lazyObject(json, params.start, params.members);
  message.params = lazy;
  rememberParamsJson(lazy, json);
  return message;
}

/** An object whose members are parsed from `json` (the params' text, at `base` in the message) on first read. */
function lazyObject(json: string, base: number, members: JsonMember[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const m of members) {
    const settle = (value: unknown) => {
      Object.defineProperty(object, m.key, { value, writable: true, enumerable: true, configurable: true });
    };
    const start = m.start - base;
    const end = m.end - base;
    Object.defineProperty(object, m.key, {
      enumerable: true,
      configurable: true,
      get() {
        const value: unknown = JSON.parse(json.slice(start, end));
        settle(value);
        return value;
      },
      set: settle,
    });
  }
  return object;
}

function hasRepeatedKey(members: JsonMember[]): boolean {
  if (members.length < 2) return false;
  const seen = new Set<string>();
  for (const m of members) {
    if (seen.has(m.key)) return true;
    seen.add(m.key);
  }
  return false;
}
