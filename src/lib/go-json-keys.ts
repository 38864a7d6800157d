import { setOwn } from './own-property.js';

/**
 * Reading JSON the way Go's encoding/json fills a struct, which is how PicoClaw reads every hook
 * answer. Whatever the gateway or the bridge checks must be read this way, or a key such as
 * `"Approved"` or `"Role"` means one thing to the check and another to PicoClaw.
 *
 * Go's rules (encoding/json v1, unchanged from Go 1.21 to 1.26; test/lib/go-json-vectors prints them):
 * - A key sets the field with exactly its name, else the field whose name it equals after folding
 *   case. The fold (foldName/foldRune in fold.go) maps ASCII letters to one case and every other
 *   rune to the smallest rune of its Unicode fold set; the only non-ASCII runes that land on ASCII are
 *   U+017F ſ (→ s) and U+212A K KELVIN SIGN (→ k). Unknown keys are ignored.
 * - Keys apply in document order, so of several keys for one field the last one wins.
 * - `null` leaves a string, bool, number or struct field as it was; it clears a pointer, map, slice
 *   or interface.
 * - A second object or array for a struct, pointer, map or slice field is decoded *into* the first:
 *   the two merge. This reader does not imitate that; it reports the answer as ambiguous.
 * - A value of the wrong JSON type fails the whole decode.
 *
 * Objects from JSON.parse keep their keys in document order, except that JSON.parse keeps only one
 * of several keys spelt exactly alike (at the first one's place, with the last one's value), so it
 * loses the order Go sees. Such text must be refused before parsing (see json-duplicate-keys.ts).
 */

/** The JSON types Go accepts for a field, and what `null` and a second value do to it. */
export type GoType =
  | 'string'
  | 'bool'
  | 'number'
  | 'struct'
  | 'pointer'
  | 'map'
  | 'slice'
  /** []string */
  | 'strings'
  | 'any';

export interface GoField {
  type: GoType;
  /** The struct a struct or pointer field holds, or the struct each element of a slice is. */
  of?: GoStruct;
}

/**
 * Go's folded form of a key, in lower case: ASCII letters, ſ and K fold; nothing else changes,
 * because no other character can ever match an ASCII field name.
 */
export function foldFieldName(key: string): string {
  return FOLDABLE.test(key) ? key.replace(FOLD_CHARS, foldChar) : key;
}

const FOLDABLE = /[A-Z\u017f\u212a]/;
const FOLD_CHARS = /[A-Z\u017f\u212a]/g;

function foldChar(c: string): string {
  if (c === '\u017f') return 's';
  if (c === '\u212a') return 'k';
  return String.fromCharCode(c.charCodeAt(0) + 32);
}

/** A Go struct's JSON fields (ASCII names, as in PicoClaw's json tags). */
export class GoStruct {
  readonly fields: ReadonlyMap<string, GoField>;
  private readonly byFolded: ReadonlyMap<string, string>;

  constructor(fields: Readonly<Record<string, GoType | GoField>>) {
    const all = new Map<string, GoField>();
    const folded = new Map<string, string>();
    for (const [name, f] of Object.entries(fields)) {
      all.set(name, typeof f === 'string' ? { type: f } : f);
      folded.set(foldFieldName(name), name);
    }
    this.fields = all;
    this.byFolded = folded;
  }

  /**
   * The field a JSON key sets, or undefined when Go ignores the key. Keys are nearly always the
   * field names themselves: those are found without folding.
   */
  match(key: string): string | undefined {
    if (this.fields.has(key)) return key;
    return this.byFolded.get(foldFieldName(key));
  }
}

export type GoRead = { ok: true; value: Record<string, unknown> } | { ok: false; why: string };

/**
 * `obj` as Go would fill `struct`, as a plain object under the fields' own names: known fields
 * folded onto their names (last one wins, nested structs read the same way), a cleared field left
 * out, unknown keys kept as they are (Go ignores them, so they cannot change what a check sees) or
 * dropped. Fails on a wrong JSON type and on a field given two objects or arrays (Go would merge
 * them).
 */
export function readGoObject(
  obj: Record<string, unknown>,
  struct: GoStruct,
  options: { unknownKeys?: 'keep' | 'drop'; path?: string } = {},
): GoRead {
  const path = options.path ?? '';
  const keepUnknown = options.unknownKeys !== 'drop';
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined) continue; // what JSON.stringify does; JSON itself has no undefined
    const name = struct.match(key);
    if (name === undefined) {
      if (keepUnknown) setOwn(out, key, value);
      continue;
    }
    const field = struct.fields.get(name) as GoField;
    if (value === null) {
      if (CLEARED_BY_NULL.has(field.type)) delete out[name];
      continue;
    }
    const wrong = wrongType(field.type, value);
    if (wrong) return { ok: false, why: `${path}${name} is not ${wrong}` };
    if (MERGES.has(field.type) && out[name] !== undefined) {
      return { ok: false, why: `${path}${name} is given more than once (Go would merge the values)` };
    }
    if (field.of === undefined) {
      out[name] = value;
      continue;
    }
    const read = readNested(field, value, `${path}${name}`);
    if (!read.ok) return read;
    out[name] = read.value;
  }
  return { ok: true, value: out };
}

const CLEARED_BY_NULL: ReadonlySet<GoType> = new Set(['pointer', 'map', 'slice', 'strings', 'any']);
const MERGES: ReadonlySet<GoType> = new Set(['struct', 'pointer', 'map', 'slice', 'strings']);

function wrongType(type: GoType, value: unknown): string | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'a string';
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'a boolean';
    case 'number':
      return typeof value === 'number' ? undefined : 'a number';
    case 'slice':
      return Array.isArray(value) ? undefined : 'a list';
    case 'strings':
      // A null element is "" to Go.
      return Array.isArray(value) && value.every((e) => e === null || typeof e === 'string')
        ? undefined
        : 'a list of strings';
    case 'any':
      return undefined;
    default:
      return isObject(value) ? undefined : 'an object';
  }
}

function readNested(field: GoField, value: unknown, at: string): { ok: true; value: unknown } | GoRead {
  const of = field.of;
  if (!of) return { ok: true, value };
  if (field.type !== 'slice') {
    return readGoObject(value as Record<string, unknown>, of, { path: `${at}.` });
  }
  const items = value as unknown[];
  const out: unknown[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    // A null element is a zero struct to Go; passed on as null, PicoClaw reads the same zero.
    if (item === null) {
      out[i] = null;
      continue;
    }
    if (!isObject(item)) return { ok: false, why: `${at}[${i}] is not an object` };
    const read = readGoObject(item, of, { path: `${at}[${i}].` });
    if (!read.ok) return read;
    out[i] = read.value;
  }
  return { ok: true, value: out };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
