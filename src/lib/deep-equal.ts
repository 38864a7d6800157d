/**
 * Structural equality for compiled config values: plain objects, arrays, Sets, Maps, byte arrays
 * and primitives. What a config reload uses to tell a hook or a tenant's keys that did not change
 * (and keeps running as it is) from one that did. Not for cyclic values.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Uint8Array) {
    const y = b as Uint8Array;
    return a.length === y.length && a.every((v, i) => v === y[i]);
  }
  if (Array.isArray(a)) {
    const y = b as unknown[];
    return a.length === y.length && a.every((v, i) => deepEqual(v, y[i]));
  }
  if (a instanceof Set) {
    const y = b as Set<unknown>;
    // Config sets hold primitives (modes, tool names).
    return a.size === y.size && [...a].every((v) => y.has(v));
  }
  if (a instanceof Map) {
    const y = b as Map<unknown, unknown>;
    return a.size === y.size && [...a].every(([k, v]) => y.has(k) && deepEqual(v, y.get(k)));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && deepEqual(x[k], y[k]));
}
