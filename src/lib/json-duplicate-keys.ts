/**
 * The first key that appears twice in one object of a JSON text (compared after unescaping, as
 * every parser compares them), or undefined. Parsers disagree on such text: JSON.parse keeps the
 * key once, at its first place with its last value, while Go applies every occurrence in order and
 * merges repeated objects. No encoder writes it (RFC 8259: names SHOULD be unique), so a hook answer
 * with a repeated key is ambiguous and is refused rather than read one way or the other.
 *
 * Not a validator: on text that is not JSON the result means nothing (JSON.parse rejects it
 * anyway). Strings are skipped with indexOf, so the cost follows the number of keys, not the size
 * of the text.
 */
export function findDuplicateKey(text: string): string | undefined {
  // One entry per open object or array: ARRAY for an array, else the object's keys so far (a list
  // while short, which is faster than a Set for the few keys most objects have).
  const open: (string[] | Set<string> | typeof ARRAY)[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end < 0) return undefined;
      const keys = open.length > 0 ? open[open.length - 1] : ARRAY;
      if (keys !== ARRAY && isKey(text, end + 1)) {
        const key = keyText(text, i, end);
        if (Array.isArray(keys)) {
          if (keys.includes(key)) return key;
          keys.push(key);
          if (keys.length > SHORT) open[open.length - 1] = new Set(keys);
        } else {
          if (keys.has(key)) return key;
          keys.add(key);
        }
      }
      i = end;
    } else if (c === OPEN_OBJECT) open.push([]);
    else if (c === OPEN_ARRAY) open.push(ARRAY);
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) open.pop();
  }
  return undefined;
}

const SHORT = 16;
const ARRAY = Symbol('array');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Index of the quote that ends the string whose content starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let at = text.indexOf('"', from);
  while (at >= 0) {
    let backslashes = 0;
    for (let j = at - 1; j >= from && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** A string is a key when the next character that is not JSON whitespace is a colon. */
function isKey(text: string, from: number): boolean {
  if (text.charCodeAt(from) === COLON) return true;
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === COLON;
  }
  return false;
}

function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  if (raw.indexOf('\\') < 0) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return raw;
  }
}
