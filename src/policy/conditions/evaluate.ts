/**
 * One condition on one call's view: `true`, `false`, or the error as a value. Never throws: a
 * condition that fails at run time (a missing key, a type mismatch inside `dyn`, a pattern built
 * from the arguments that the matcher refuses) must become a decision, and the caller decides it
 * closed (deny/refuse) and audits the error; an exception would skip both.
 */
import type { CompiledCondition } from './compile.js';
import { readable } from './environment.js';
import type { ConditionView } from './view.js';

export type ConditionResult = true | false | { error: string };

export function evaluate(condition: CompiledCondition, view: ConditionView): ConditionResult {
  let value: unknown;
  try {
    value = condition.run(view);
  } catch (err) {
    return { error: readable(err instanceof Error ? err.message : String(err)) };
  }
  if (value === true || value === false) return value;
  // A `dyn` result is checked here: anything but a bool is an error, not a truthy value.
  return { error: `condition is not a bool (got ${describe(value)})` };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Promise) return 'a pending value';
  return typeof value === 'object' ? 'map' : typeof value;
}
