import { setOwn } from '../lib/own-property.js';

/**
 * The allowlist engine behind data minimisation. A Shape says which parts of a JSON value are known
 * to carry no conversation text; everything else is withheld: its strings are sent empty (structure,
 * numbers and booleans stay, so a hook still sees shape, counts and flags). Unknown fields are
 * withheld by default, so a field PicoClaw adds later stays hidden until someone lists it.
 */

/** Known to be free of conversation text (ids, names, enums, counts): passed as sent. */
export const PASS = 'pass';
/** Known conversation text: its strings are sent empty. Unlisted fields get the same treatment. */
export const WITHHOLD = 'withhold';
/** Left out entirely. */
export const DROP = 'drop';

/** An object shape lists fields; it applies to every element of an array. */
export type Shape = typeof PASS | typeof WITHHOLD | typeof DROP | { readonly [field: string]: Shape };

export function withhold(value: unknown, shape: Shape): unknown {
  if (shape === PASS) return value;
  if (shape === WITHHOLD || shape === DROP) return blank(value);
  if (Array.isArray(value)) return value.map((v) => withhold(v, shape));
  if (typeof value !== 'object' || value === null) return blank(value);
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : WITHHOLD;
    if (field !== DROP) setOwn(out, key, withhold(source[key], field));
  }
  return out;
}

/** Every string in `value` emptied; everything else as it was. */
export function blank(value: unknown): unknown {
  if (typeof value === 'string') return '';
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(blank);
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) setOwn(out, key, blank(source[key]));
  return out;
}
