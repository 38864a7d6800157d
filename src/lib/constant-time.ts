const encoder = new TextEncoder();

/**
 * Compares a presented secret with the expected one in time that depends only on the lengths, not
 * on where the first difference is. Runtime-neutral (no node:crypto): Node and Workers share it.
 */
export function constantTimeEqual(presented: string, expected: string): boolean {
  const x = encoder.encode(presented);
  const y = encoder.encode(expected);
  let diff = x.length ^ y.length;
  // The loop runs over the presented value, so how long it takes depends on what the caller sent.
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ (y[i % (y.length || 1)] ?? 0);
  return diff === 0;
}
