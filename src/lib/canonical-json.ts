/**
 * JSON with object keys sorted (code-unit order, as RFC 8785's JCS orders them) and no whitespace,
 * so two equal values always give the same text: what a digest of arguments is taken over. Numbers
 * and strings are written as JSON.stringify writes them, which is JCS's form for both. `undefined`,
 * functions and symbols in objects are left out and in arrays become null, as in JSON.stringify.
 * Throws on a cycle or on nesting past the stack, like JSON.stringify.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return canonicalJson(toJson.call(value));
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}
