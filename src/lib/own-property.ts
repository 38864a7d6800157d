/**
 * `target[key] = value` for a key that came from outside. Plain assignment of `__proto__` replaces
 * the object's prototype (so `{"__proto__":{"approved":true}}` would make `approved` appear as an
 * inherited field); this keeps it an ordinary own field, as JSON.parse does.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** `o[key]` only when it is `o`'s own field: a name from the wire never reaches an inherited one. */
export function ownValue(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** `o[key]` when it is an own string field, else `''` (PicoClaw's zero value for a string). */
export function ownString(o: Record<string, unknown>, key: string): string {
  const v = ownValue(o, key);
  return typeof v === 'string' ? v : '';
}
