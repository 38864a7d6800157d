/**
 * The one CEL environment every condition is checked and run in: the view's variables with their
 * types, and `matches` on the linear-time matcher. Built once per isolate; a condition is parsed,
 * checked and planned against it once per config.
 */
import { Environment } from '@marcbachmann/cel-js';
import { compileLinearRegex, type LinearRegex } from './linear-regex.js';
import { VIEW_TYPES } from './view.js';

/**
 * The engine's own `matches` runs JavaScript's backtracking RegExp and cannot be overridden, so
 * the compiler renames every call of `matches` to this function (see compile.ts). Messages that
 * name it are turned back into `matches` before anyone reads them.
 */
export const LINEAR_MATCHES = 'hookgate_linear_matches';

/** Parser limits: far above any rule a person writes, far below what could cost a call time. */
export const MAX_SOURCE_LENGTH = 4096;
export const MAX_AST_NODES = 400;
const MAX_DEPTH = 32;

/**
 * Patterns compiled so far, shared by every condition: literal patterns are compiled (and refused)
 * at load and found here on each call; a pattern computed from a call's arguments is compiled on
 * first use. Bounded: when full it starts over, so arguments cannot grow it without limit. Each
 * pattern's lazy DFA may hold up to about 100 KiB of transitions, so 256 patterns bound the whole
 * at about 25 MiB even when every call brings a pattern of its own.
 */
const patterns = new Map<string, LinearRegex>();
const MAX_CACHED_PATTERNS = 256;

export function linearRegex(pattern: string): LinearRegex {
  let re = patterns.get(pattern);
  if (!re) {
    re = compileLinearRegex(pattern);
    if (patterns.size >= MAX_CACHED_PATTERNS) patterns.clear();
    patterns.set(pattern, re);
  }
  return re;
}

function buildEnvironment(): Environment {
  const env = new Environment({
    limits: { maxAstNodes: MAX_AST_NODES, maxDepth: MAX_DEPTH },
    // CEL lets a list or map literal mix types (`[".env", 1]`); the engine's stricter default
    // refuses them, and 22 more cel-spec conformance cases with it.
    homogeneousAggregateLiterals: false,
  });
  for (const [name, type] of Object.entries(VIEW_TYPES)) env.registerVariable(name, type);
  const matches = (text: string, pattern: string) => linearRegex(pattern).test(text);
  env.registerFunction(`string.${LINEAR_MATCHES}(string): bool`, matches);
  env.registerFunction(`${LINEAR_MATCHES}(string, string): bool`, matches);
  return env;
}

let shared: Environment | undefined;

export function conditionEnvironment(): Environment {
  shared ??= buildEnvironment();
  return shared;
}

/** An engine message as a person reads it: the real name of `matches`, the first line only. */
export function readable(message: string): string {
  return (message.split('\n')[0] ?? '').replaceAll(LINEAR_MATCHES, 'matches');
}
