/**
 * The small pieces of a JSON text scanner that the places reading JSON without parsing it share
 * (duplicate keys, counting array elements, finding a message's params): character codes, JSON
 * whitespace, where a string ends, and what a key says.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

/** JSON's whitespace: space, line feed, carriage return, tab. */
export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index of the first character at or after `from` that is not JSON whitespace. */
export function skipJsonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Index of the quote that ends the string whose content starts at `from`, or -1. Found with
 * indexOf (not a loop over every character): a quote counts unless an odd run of backslashes
 * precedes it.
 */
export function closingQuote(text: string, from: number): number {
  let at = text.indexOf('"', from);
  while (at >= 0) {
    let backslashes = 0;
    for (let j = at - 1; j >= from && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** A key as JSON.parse reads it (`"par\u0061ms"` is `params`), given its quotes' indexes. */
export function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  if (raw.indexOf('\\') < 0) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return raw;
  }
}
