import type { ConfigIssue } from './errors.js';
import type { LimitSpec } from './runtime.js';
import type { LimitsDocument } from './schema.js';

/**
 * A `limits` block as the runtime uses it, or undefined when it limits nothing. `burst` means
 * nothing without a rate, so it alone is an error rather than silently unlimited.
 */
export function compileLimits(
  doc: LimitsDocument | undefined,
  path: string,
  issues: ConfigIssue[],
): LimitSpec | undefined {
  if (!doc) return undefined;
  const rate = doc.calls_per_second;
  if (doc.burst !== undefined && rate === undefined) {
    issues.push({ path: `${path}.burst`, message: 'needs calls_per_second' });
    return undefined;
  }
  if (rate === undefined && doc.max_in_flight === undefined) return undefined;
  return {
    callsPerSecond: rate,
    // One second's worth at once unless said otherwise; at least one call.
    burst: doc.burst ?? Math.max(1, Math.ceil(rate ?? 1)),
    maxInFlight: doc.max_in_flight,
  };
}
