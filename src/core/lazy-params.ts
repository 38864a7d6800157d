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

/** Where a lazy object's members are: its params' text, that text's place in the message, the members. */
interface LazySource {
  /** The params' text; undefined while it is held only as UTF-8 (see keepAsUtf8). */
  json: string | undefined;
  /** The same text as UTF-8, in place of the string. */
  utf8?: Uint8Array;
  base: number;
  members: JsonMember[];
}

/** A lazy object keeps its source here: not enumerable, and no JSON text can spell a symbol. */
const SOURCE = Symbol('hookgate.lazy-params');
type Lazy = Record<string, unknown> & { [SOURCE]?: LazySource };

/**
 * One accessor per member name, shared by every lazy object (up to MAX_SHARED names; the names of a
 * hook method's params are few). They were closures made per object over its text: an accessor
 * defined per object gives each object a hidden class of its own, and those live in the old
 * generation, so every large message's text and closures outlived young collections and were
 * promoted (24 full collections per 20,000 parses of a 64 KiB message, against 1 for JSON.parse).
 */
const shared = new Map<string, PropertyDescriptor>();
const MAX_SHARED = 512;

function accessorFor(key: string): PropertyDescriptor {
  let accessor = shared.get(key);
  if (accessor !== undefined) return accessor;
  accessor = {
    enumerable: true,
    configurable: true,
    get(this: Lazy): unknown {
      return parseMember(this, key);
    },
    set(this: Lazy, value: unknown): void {
      settle(this, key, value);
    },
  };
  if (shared.size < MAX_SHARED) shared.set(key, accessor);
  return accessor;
}

/** The member `key` of a lazy object, parsed from its slice and kept as a data member from then on. */
function parseMember(object: Lazy, key: string): unknown {
  const source = Object.hasOwn(object, SOURCE) ? object[SOURCE] : undefined;
  const member = source?.members.find((m) => m.key === key);
  // Only a lazy object's own accessor is ever called with it as `this`.
  if (source === undefined || member === undefined) return undefined;
  if (source.json === undefined) {
    source.json = decoder.decode(source.utf8);
    source.utf8 = undefined;
  }
  const value: unknown = JSON.parse(source.json.slice(member.start - source.base, member.end - source.base));
  settle(object, key, value);
  return value;
}

function settle(object: Lazy, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

const decoder = new TextDecoder();

/**
 * Tells a lazy object that `utf8` is its params' text `json` in UTF-8 (the peer encodes it into
 * the line it sends a stdio hook): the object keeps those bytes, outside the JS heap, instead of
 * the string, and decodes them again only if a member is read after all (a hook's `modify` is
 * compared with the request; a `continue` reads nothing).
 *
 * Why: a call held the client's whole message (params are a slice of it) until the hook answered.
 * With 64 calls of 64 KiB in flight that is 4 MiB, which every full collection promoted into the
 * old generation. After V8's memory reducer has run (any pause in traffic) the heap grows slowly,
 * and V8 starts marking as soon as the room left is below the young generation's size: each
 * promotion used up the room the last collection had left, and marking began again at once, a
 * full collection every 60-80 ms for as long as the load lasted (the gateway's CPU per call went
 * from about 190 to 330-440 µs). It can still begin without promotion; see docs/performance.md.
 *
 * Only a well-formed text is given up: TextEncoder writes a lone surrogate as U+FFFD, so decoding
 * would not give back what JSON.parse reads from the string.
 */
export function keepAsUtf8(params: unknown, json: string, utf8: Uint8Array): void {
  if (typeof params !== 'object' || params === null || !Object.hasOwn(params, SOURCE)) return;
  const source = (params as Lazy)[SOURCE];
  if (source === undefined || source.json !== json || !isWellFormed(json)) return;
  source.json = undefined;
  source.utf8 = utf8;
}

/** String#isWellFormed (ES2024: Node 20 and workerd have it; the TypeScript lib here is ES2023). */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** An object whose members are parsed from `json` (the params' text, at `base` in the message) on first read. */
function lazyObject(json: string, base: number, members: JsonMember[]): Record<string, unknown> {
  const object: Lazy = {};
  Object.defineProperty(object, SOURCE, { value: { json, base, members } satisfies LazySource });
  for (const m of members) Object.defineProperty(object, m.key, accessorFor(m.key));
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
