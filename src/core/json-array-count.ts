import {
  QUOTE,
  COMMA,
  OPEN_OBJECT,
  CLOSE_OBJECT,
  OPEN_ARRAY,
  CLOSE_ARRAY,
  isJsonSpace,
  closingQuote,
} from '../lib/json-scan.js';

/**
 * How a body starts and how many elements a top-level JSON array has, read from the text without
 * parsing it, so a body that will be refused anyway costs only the part read. JSON.parse of a few MB
 * of small objects blocks the event loop, and with it every tenant, for tenths of a second to
 * seconds (a new hidden class per object whose keys are new); parsing it only to refuse it was the
 * cost.
 *
 * Not a validator: on text that is not JSON the answer means nothing, and the caller still parses
 * what it accepts.
 */

/** The first character that is not JSON whitespace, or '' for an empty or blank text. */
export function firstJsonChar(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return text[i];
  }
  return '';
}

/**
 * The number of elements of the JSON array `text` is, counting no further than `limit + 1`: a batch
 * over the limit is known as soon as its element `limit + 1` begins, whatever follows. Undefined
 * when the text is not an array.
 */
export function countArrayElements(text: string, limit: number): number | undefined {
  let i = 0;
  const n = text.length;
  while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== OPEN_ARRAY) return undefined;
  i++;
  let depth = 1;
  let count = 0;
  // Whether something has begun since the last separator at the top level.
  let element = false;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (isJsonSpace(c)) continue;
    if (depth === 1 && !element && c !== CLOSE_ARRAY && c !== COMMA) {
      element = true;
      count++;
      if (count > limit) return count;
    }
    if (c === QUOTE) {
      i = closingQuote(text, i + 1);
      if (i < 0) return count;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
      if (depth === 0) return count;
    } else if (c === COMMA && depth === 1) element = false;
  }
  return count;
}
