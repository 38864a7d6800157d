import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from './json-scan.js';

/**
 * Shows that a JSON text is one JSON.parse accepts without building it, and where the members of
 * its objects are, so that a large message can be checked whole and its parts parsed only when
 * something reads them (see protocol/lazy-params.ts).
 *
 * It accepts a subset of what JSON.parse accepts and never more: texts that hold any character
 * below U+0020 (so also tab, line feed and carriage return between tokens) are not shown, nor keys
 * with escapes, nor objects nested deeper than MAX_DEPTH. "Not shown" (undefined, -1) is not a
 * verdict: the caller parses such a text with JSON.parse, which gives the verdict and its error.
 * Every other rule is JSON's (RFC 8259, as ECMA-262's JSON.parse reads it): strings and their
 * escapes, numbers, the three literals, commas and colons, nothing after the value but spaces.
 */

/** Deeper texts are left to JSON.parse: the checks after it walk values recursively. */
export const MAX_DEPTH = 512;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its job.
const CONTROL = /[\u0000-\u001f]/;
const SPACE = 0x20;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_U = 0x75;
const IN_OBJECT = 1;
const IN_ARRAY = 2;

/** One member of an object: its key (no escapes) and where its value's text starts and ends. */
export interface JsonMember {
  key: string;
  start: number;
  end: number;
  /** The members of the value, for the key `members` was asked to expand (when it is an object). */
  members?: JsonMember[];
}

/** True when `text` has no character below U+0020: the precondition of everything below. */
export function controlFree(text: string): boolean {
  return !CONTROL.test(text);
}

/**
 * Reads one text left to right. The position of the next backslash is remembered across strings,
 * so the escapes of a whole text are found by one pass of indexOf, not one per string.
 */
export class JsonValidator {
  private nextBackslash = -1;

  /** `text` must be control-free (see controlFree); the scanner does not check it again. */
  constructor(private readonly text: string) {}

  /**
   * Index just past the value that starts at `at` (no leading space), or -1 when the text there is
   * not shown to be a JSON value.
   */
  valueEnd(at: number): number {
    const text = this.text;
    const stack: number[] = [];
    let i = at;
    for (;;) {
      // A value starts at i.
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = this.stringEnd(i);
        if (i < 0) return -1;
      } else if (c === OPEN_OBJECT) {
        i = this.skipSpace(i + 1);
        if (text.charCodeAt(i) === CLOSE_OBJECT) {
          i++;
        } else {
          if (stack.length >= MAX_DEPTH) return -1;
          stack.push(IN_OBJECT);
          i = this.keyThenColon(i);
          if (i < 0) return -1;
          continue;
        }
      } else if (c === OPEN_ARRAY) {
        i = this.skipSpace(i + 1);
        if (text.charCodeAt(i) === CLOSE_ARRAY) {
          i++;
        } else {
          if (stack.length >= MAX_DEPTH) return -1;
          stack.push(IN_ARRAY);
          continue;
        }
      } else {
        i = this.primitiveEnd(i);
        if (i < 0) return -1;
      }
      // A value ended at i: close what it ends, or go on to the next member or element.
      for (;;) {
        if (stack.length === 0) return i;
        i = this.skipSpace(i);
        const d = text.charCodeAt(i);
        const open = stack[stack.length - 1];
        if (d === COMMA) {
          i = this.skipSpace(i + 1);
          if (open === IN_OBJECT) {
            i = this.keyThenColon(i);
            if (i < 0) return -1;
          }
          break;
        }
        if ((open === IN_OBJECT && d === CLOSE_OBJECT) || (open === IN_ARRAY && d === CLOSE_ARRAY)) {
          stack.pop();
          i++;
          continue;
        }
        return -1;
      }
    }
  }

  /**
   * The members of the object that starts at `at`, in text order, and the index just past it; or
   * undefined when it is not shown to be an object whose keys have no escapes. The value of a
   * member named `expand` that is an object is read the same way, once (its members are given).
   * Calls on one validator must move forward through the text (the backslash found last is kept).
   */
  members(at: number, expand?: string): { members: JsonMember[]; end: number } | undefined {
    const text = this.text;
    if (text.charCodeAt(at) !== OPEN_OBJECT) return undefined;
    const members: JsonMember[] = [];
    let i = this.skipSpace(at + 1);
    if (text.charCodeAt(i) === CLOSE_OBJECT) return { members, end: i + 1 };
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return undefined;
      const keyEnd = this.stringEnd(i);
      if (keyEnd < 0) return undefined;
      const key = text.slice(i + 1, keyEnd - 1);
      if (key.indexOf('\\') >= 0) return undefined;
      i = this.skipSpace(keyEnd);
      if (text.charCodeAt(i) !== COLON) return undefined;
      const start = this.skipSpace(i + 1);
      if (key === expand && text.charCodeAt(start) === OPEN_OBJECT) {
        const inner = this.members(start);
        if (inner === undefined) return undefined;
        members.push({ key, start, end: inner.end, members: inner.members });
        i = this.skipSpace(inner.end);
      } else {
        const end = this.valueEnd(start);
        if (end < 0) return undefined;
        members.push({ key, start, end });
        i = this.skipSpace(end);
      }
      const c = text.charCodeAt(i);
      if (c === CLOSE_OBJECT) return { members, end: i + 1 };
      if (c !== COMMA) return undefined;
      i = this.skipSpace(i + 1);
    }
  }

  /** Index of the first character at or after `at` that is not a space. */
  skipSpace(at: number): number {
    const text = this.text;
    if (text.charCodeAt(at) !== SPACE) return at;
    let i = at + 1;
    while (text.charCodeAt(i) === SPACE) i++;
    return i;
  }

  /** A key at `at`, spaces and a colon, and the spaces after it: where the member's value starts. */
  private keyThenColon(at: number): number {
    if (this.text.charCodeAt(at) !== QUOTE) return -1;
    let i = this.stringEnd(at);
    if (i < 0) return -1;
    i = this.skipSpace(i);
    if (this.text.charCodeAt(i) !== COLON) return -1;
    return this.skipSpace(i + 1);
  }

  /** Index just past the string whose opening quote is at `at`, or -1. */
  private stringEnd(at: number): number {
    const text = this.text;
    let from = at + 1;
    let quote = text.indexOf('"', from);
    for (;;) {
      if (quote < 0) return -1;
      let backslash = this.nextBackslash;
      if (backslash !== Number.MAX_SAFE_INTEGER && backslash < from) {
        backslash = text.indexOf('\\', from);
        if (backslash < 0) backslash = Number.MAX_SAFE_INTEGER;
        this.nextBackslash = backslash;
      }
      if (backslash > quote) return quote + 1;
      // An escape before the quote: check it and go on after it.
      const e = text.charCodeAt(backslash + 1);
      if (e === LOWER_U) {
        for (let k = backslash + 2; k < backslash + 6; k++) if (!isHexDigit(text.charCodeAt(k))) return -1;
        from = backslash + 6;
      } else if (isSimpleEscape(e)) {
        from = backslash + 2;
      } else {
        return -1;
      }
      if (quote < from) quote = text.indexOf('"', from);
    }
  }

  /** Index just past the number or literal at `at`, or -1. */
  private primitiveEnd(at: number): number {
    const text = this.text;
    const c = text.charCodeAt(at);
    if (c === 0x74) return text.startsWith('true', at) ? at + 4 : -1;
    if (c === 0x66) return text.startsWith('false', at) ? at + 5 : -1;
    if (c === 0x6e) return text.startsWith('null', at) ? at + 4 : -1;
    let i = at;
    if (c === MINUS) i++;
    const first = text.charCodeAt(i);
    if (first === ZERO) {
      i++;
    } else if (first > ZERO && first <= NINE) {
      i = digitsEnd(text, i + 1);
    } else {
      return -1;
    }
    if (text.charCodeAt(i) === DOT) {
      const end = digitsEnd(text, i + 1);
      if (end === i + 1) return -1;
      i = end;
    }
    const e = text.charCodeAt(i);
    if (e === LOWER_E || e === UPPER_E) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === PLUS || sign === MINUS) i++;
      const end = digitsEnd(text, i);
      if (end === i) return -1;
      i = end;
    }
    return i;
  }
}

function digitsEnd(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c >= ZERO && c <= NINE; c = text.charCodeAt(++i));
  return i;
}

function isHexDigit(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`. */
function isSimpleEscape(c: number): boolean {
  return (
    c === QUOTE ||
    c === BACKSLASH ||
    c === 0x2f ||
    c === 0x62 ||
    c === 0x66 ||
    c === 0x6e ||
    c === 0x72 ||
    c === 0x74
  );
}

/**
 * Whether `text` as a whole is a JSON text JSON.parse accepts, when that can be shown without
 * parsing it; undefined when it cannot (see the top of this file). Never false: only JSON.parse says
 * a text is not JSON.
 */
export function shownValid(text: string): true | undefined {
  if (!controlFree(text)) return undefined;
  const v = new JsonValidator(text);
  const start = v.skipSpace(0);
  const end = v.valueEnd(start);
  if (end < 0 || v.skipSpace(end) !== text.length) return undefined;
  return true;
}
