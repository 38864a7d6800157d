import {
  QUOTE,
  COLON,
  OPEN_OBJECT,
  CLOSE_OBJECT,
  OPEN_ARRAY,
  CLOSE_ARRAY,
  closingQuote,
  keyText,
  isJsonSpace,
} from './json-scan.js';

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

/** A string is a key when the next character that is not JSON whitespace is a colon. */
function isKey(text: string, from: number): boolean {
  if (text.charCodeAt(from) === COLON) return true;
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (isJsonSpace(c)) continue;
    return c === COLON;
  }
  return false;
}
