import { isPlainObject } from '../../policy/equal.js';

/** Fields whose value says the verdict; the others are named, never shown (arguments, reasons). */
const VERDICT_FIELDS = new Set(['permissionDecision', 'decision', 'behavior', 'continue']);

/**
 * What a command-hook host was sent, in a few words, for an audit line's `answered`: its verdict
 * fields with their values and the names of the rest, never their contents. `{}` is no objection.
 */
export function commandAnsweredLabel(answer: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      if (k === 'hookEventName') continue;
      if (VERDICT_FIELDS.has(k) && (typeof v === 'string' || typeof v === 'boolean')) parts.push(`${k}:${v}`);
      else if (isPlainObject(v) && (k === 'hookSpecificOutput' || k === 'decision')) walk(v);
      else if (!/reason|message/i.test(k)) parts.push(k);
    }
  };
  walk(answer);
  return parts.length === 0 ? '{}' : parts.join(' ');
}
