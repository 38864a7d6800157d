/**
 * A condition's source → a checked, planned condition, once per config (load and reload), never
 * per call. Everything that can be known before a call is refused here, as a config error naming
 * the condition's path: syntax, unknown variables and functions, type errors, a result that is not
 * a bool, a pattern `matches` would refuse, an expression over the size limit, and comprehensions
 * whose cost could grow faster than the call's size.
 */
import { ConfigError } from '../../config/errors.js';
import {
  conditionEnvironment,
  LINEAR_MATCHES,
  linearRegex,
  MAX_SOURCE_LENGTH,
  readable,
} from './environment.js';
import type { ConditionView } from './view.js';

export interface CompiledCondition {
  /** The condition as written. */
  readonly source: string;
  /** Where it was written (`tenants.acme.hooks.guard.rules.2.when`), for audit lines and errors. */
  readonly path: string;
  /** @internal The engine's planned expression; use evaluate(). */
  readonly run: (view: ConditionView) => unknown;
}

/** The engine's AST node, as far as the compiler reads and rewrites it. */
interface AstNode {
  op: string;
  args: unknown;
}

/** Macros that iterate over a list or map: each nesting multiplies the cost by that size. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

export function compileCondition(source: unknown, path: string): CompiledCondition {
  const fail = (message: string): never => {
    throw new ConfigError([{ path, message }]);
  };
  if (typeof source !== 'string') return fail('must be a CEL expression (a string)');
  if (source.trim() === '') return fail('empty condition');
  if (source.length > MAX_SOURCE_LENGTH) {
    return fail(`condition longer than ${MAX_SOURCE_LENGTH} characters`);
  }
  const env = conditionEnvironment();
  let parsed: ReturnType<typeof env.parse>;
  try {
    parsed = env.parse(source);
  } catch (err) {
    return fail(`syntax error: ${readable(errorMessage(err))}`);
  }
  const problem = rewriteAndLimit(parsed.ast as AstNode);
  if (problem) return fail(problem);
  const checked = parsed.check();
  if (!checked.valid) return fail(`type error: ${readable(errorMessage(checked.error))}`);
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return fail(`must be a bool expression, is ${checked.type}`);
  }
  return { source, path, run: parsed as unknown as (view: ConditionView) => unknown };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Walks the parsed expression once: points every `matches` at the linear-time matcher (compiling
 * literal patterns now, so a bad one is a load error) and bounds comprehension nesting. A
 * comprehension over a literal list (`["a", "b"].exists(x, …)`) costs at most its own size and
 * does not count; one over call data (`args`, `claims`, anything computed from them) does, and
 * two of those nested would cost the square of the call's size. Returns a problem, or undefined.
 */
function rewriteAndLimit(root: AstNode): string | undefined {
  const visit = (node: unknown, dataDepth: number): string | undefined => {
    if (!isNode(node)) {
      if (Array.isArray(node)) {
        for (const item of node) {
          const p = visit(item, dataDepth);
          if (p) return p;
        }
      }
      return undefined;
    }
    const args = node.args;
    if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(args) && typeof args[0] === 'string') {
      const name = args[0];
      const callArgs = (node.op === 'rcall' ? args[2] : args[1]) as unknown[];
      if (name === 'matches') {
        args[0] = LINEAR_MATCHES;
        const pattern = callArgs[callArgs.length - 1];
        if (isNode(pattern) && pattern.op === 'value' && typeof pattern.args === 'string') {
          try {
            linearRegex(pattern.args);
          } catch (err) {
            return `matches: ${errorMessage(err)}`;
          }
        }
      }
      if (node.op === 'rcall' && COMPREHENSIONS.has(name)) {
        const range = args[1];
        const overLiteral = isNode(range) && (range.op === 'list' || range.op === 'map');
        const depth = overLiteral ? dataDepth : dataDepth + 1;
        if (depth > 1) {
          return `${name}(): comprehensions over call data may not nest (the cost would grow with the square of the call's size)`;
        }
        return visit(range, dataDepth) ?? visit(callArgs, depth);
      }
    }
    return visit(args, dataDepth);
  };
  return visit(root, 0);
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'op' in value;
}
