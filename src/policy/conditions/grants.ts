/**
 * Whether a tool grant covers one call. A plain entry for the tool grants it; otherwise its
 * conditional entries are tried in config order and the first that holds grants it. A condition
 * that errs is a refusal (fails closed) unless another entry grants the call, and the refusal
 * names the entry and the error, as a false one names the entries that did not hold.
 */
import type { ToolGrant } from '../../config/grant-entries.js';
import { evaluate } from './evaluate.js';
import type { ConditionView } from './view.js';

export type GrantDecision =
  /** `entry`: the entry that granted it (its config path). */
  | { granted: true; entry: string }
  | {
      granted: false;
      /** Why, naming the entries (`… approve_tools.0: condition is false`), or the tool not named. */
      reason: string;
      /** The entries consulted, by path; empty when the list does not name the tool. */
      entries: string[];
      /** A condition that failed at run time, with its entry. */
      error?: { entry: string; message: string };
    };

export function checkGrant(grant: ToolGrant, tool: string, view: ConditionView): GrantDecision {
  const entries = grant.entries.get(tool);
  if (!entries) return { granted: false, reason: `tool "${tool}" is not granted`, entries: [] };
  const plain = entries.find((e) => !e.condition);
  if (plain) return { granted: true, entry: plain.path };
  let error: { entry: string; message: string } | undefined;
  for (const entry of entries) {
    const result = evaluate(entry.condition!, view);
    if (result === true) return { granted: true, entry: entry.path };
    if (result !== false) error ??= { entry: entry.path, message: result.error };
  }
  const paths = entries.map((e) => e.path);
  const reason = error
    ? `${error.entry}: condition failed: ${error.message}`
    : `${paths.join(', ')}: condition is false`;
  return { granted: false, reason, entries: paths, ...(error ? { error } : {}) };
}

/**
 * A rewrite is checked twice: on the call as the host sent it and on the arguments the hook would
 * send instead (with `new_args` set in both, so a condition can also compare them). Both must be
 * granted; a rewrite into something the grant does not cover is refused like one it never had.
 */
export function checkRewriteGrant(
  grant: ToolGrant,
  tool: string,
  view: ConditionView,
  newArgs: Readonly<Record<string, unknown>>,
): GrantDecision {
  const before = checkGrant(grant, tool, { ...view, new_args: newArgs });
  if (!before.granted) return before;
  const after = checkGrant(grant, tool, { ...view, args: newArgs, new_args: newArgs });
  if (after.granted) return after;
  return { ...after, reason: `on the rewritten arguments: ${after.reason}` };
}
