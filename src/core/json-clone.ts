import { setOwn } from '../lib/own-property.js';

/**
 * Deep copy of a JSON value (what JSON.parse produced). Several times faster than structuredClone
 * for this shape of data, which matters on the module backend's hot path (a 64 KB before_llm).
 */
export function jsonClone<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = jsonClone(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const k in value) {
    if (Object.hasOwn(value, k)) setOwn(out, k, jsonClone((value as Record<string, unknown>)[k]));
  }
  return out as T;
}
