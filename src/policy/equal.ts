import { setOwn } from '../lib/own-property.js';

/** Structural equality of JSON values (objects compared by keys, not key order). No allocation. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const k in ao) {
    if (!Object.hasOwn(ao, k)) continue;
    if (ao[k] === undefined) continue;
    count++;
    // Own keys only: a "__proto__" key from the wire must not compare against Object.prototype.
    if (!Object.hasOwn(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
  }
  for (const k in bo) {
    if (Object.hasOwn(bo, k) && bo[k] !== undefined) count--;
  }
  return count === 0;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * PicoClaw replaces objects and never merges, so what the gateway hands back must be complete.
 * For each key: what the hook left out, or left as it was shown (possibly withheld), comes from the
 * host's original; a key the hook changed takes the hook's value.
 */
export function fillBack(
  original: Record<string, unknown>,
  shown: Record<string, unknown>,
  returned: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...original };
  for (const k of Object.keys(returned)) {
    const v = returned[k];
    if (v === undefined) continue;
    if (Object.hasOwn(shown, k) && jsonEqual(v, shown[k])) continue;
    setOwn(out, k, v);
  }
  return out;
}
