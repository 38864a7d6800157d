/**
 * One table of conditions, views and expected outcomes, run by the Node suite
 * (test/policy/conditions/conditions.test.ts) and the workerd suite (test/worker/conditions.test.ts):
 * the same config must give the same decisions in both. No node:* imports here.
 */
import { ConfigError } from '../../../src/config/errors.js';
import {
  type ConditionView,
  compileCondition,
  evaluate,
  MAX_AST_NODES,
  MAX_SOURCE_LENGTH,
} from '../../../src/policy/conditions/index.js';

export type Expected = boolean | { error: RegExp } | { compileError: RegExp };

export interface ConditionCase {
  name: string;
  source: string;
  /** Merged over BASE_VIEW. */
  view?: Partial<ConditionView>;
  expect: Expected;
}

export const BASE_VIEW: ConditionView = {
  tool: 'Bash',
  args: { command: 'git status --short' },
  host: 'claude-code',
  tenant: 'acme',
  hook: 'guard',
  claims: { sub: 'alice', tools: ['Bash'] },
  session_id: 'sess-1',
  agent_id: '',
  now: new Date('2026-06-01T12:00:00Z'),
  new_args: {},
  call: { kind: 'shell', command: 'git status --short', paths: [], url: '' },
};

const RM_RF = 'args.command.matches("rm\\\\s+-[a-z]*r[a-z]*f")';
const ENV_FILES = 'args.exists(k, string(args[k]).contains(".env"))';
const PATH = 'tenants.acme.hooks.guard.rules.2.when';

export const CASES: ConditionCase[] = [
  // The call by kind: the same keys on every host.
  { name: 'call.kind', source: 'call.kind == "shell"', expect: true },
  {
    name: 'call.command: rm -rf under any shell tool',
    source: 'call.command.matches("rm\\\\s+-[a-z]*r[a-z]*f")',
    view: {
      tool: 'exec',
      host: 'picoclaw',
      call: { kind: 'shell', command: 'rm -rf /', paths: [], url: '' },
    },
    expect: true,
  },
  {
    name: 'call.paths: any path under .env',
    source: 'call.paths.exists(p, p.endsWith(".env"))',
    view: { call: { kind: 'file_read', command: '', paths: ['src/a.ts', '/repo/.env'], url: '' } },
    expect: true,
  },
  {
    name: 'call.url: empty for a tool of no kind',
    source: 'call.url == "" && call.kind == ""',
    view: { tool: 'lookup', call: { kind: '', command: '', paths: [], url: '' } },
    expect: true,
  },
  // The issue's own examples.
  { name: 'startsWith: git status', source: 'args.command.startsWith("git status")', expect: true },
  {
    name: 'startsWith: git push is not git status',
    source: 'args.command.startsWith("git status") || args.command.startsWith("git diff")',
    view: { args: { command: 'git push --force' } },
    expect: false,
  },
  { name: 'matches: rm -rf', source: RM_RF, view: { args: { command: 'rm -rf /' } }, expect: true },
  { name: 'matches: rm -rvf', source: RM_RF, view: { args: { command: 'sudo rm  -rvf ~' } }, expect: true },
  {
    name: 'matches: rm -r is not rm -rf',
    source: RM_RF,
    view: { args: { command: 'rm -r build' } },
    expect: false,
  },
  {
    name: 'exists: an argument naming .env',
    source: ENV_FILES,
    view: { args: { path: '/app/.env' } },
    expect: true,
  },
  {
    name: 'exists: string() of a number',
    source: ENV_FILES,
    view: { args: { path: 'README.md', limit: 10 } },
    expect: false,
  },
  {
    // CEL's exists: one true predicate decides even where another errs.
    name: 'exists: true beside an argument string() cannot convert',
    source: ENV_FILES,
    view: { args: { options: { a: 1 }, path: '.env' } },
    expect: true,
  },
  {
    name: 'exists: an argument string() cannot convert, and none true, is an error',
    source: ENV_FILES,
    view: { args: { options: { a: 1 }, path: 'README.md' } },
    expect: { error: /string/ },
  },
  {
    name: 'comprehension over a literal list inside one over args',
    source: 'args.exists(k, [".env", ".pem"].exists(s, string(args[k]).contains(s)))',
    view: { args: { path: 'keys/server.pem' } },
    expect: true,
  },

  // ReDoS: linear time (the case finishes at all), the same answer as RE2.
  {
    name: 'ReDoS pattern on 100 001 characters',
    source: 'args.command.matches("(a+)+$")',
    view: { args: { command: `${'a'.repeat(100_000)}!` } },
    expect: false,
  },
  {
    name: 'RE2 case-insensitive flag',
    source: 'args.command.matches("(?i)^GIT PUSH")',
    view: { args: { command: 'git push' } },
    expect: true,
  },
  {
    name: 'matches on code points',
    source: 'args.command.matches("^é+$")',
    view: { args: { command: 'éé' } },
    expect: true,
  },
  { name: 'global form of matches', source: 'matches(args.command, "^git ")', expect: true },

  // The rest of the view.
  { name: 'tool', source: 'tool == "Bash"', expect: true },
  {
    name: 'host, tenant and hook',
    source: 'host == "claude-code" && tenant == "acme" && hook == "guard"',
    expect: true,
  },
  { name: 'claims', source: 'claims.sub == "alice" && "Bash" in claims.tools', expect: true },
  { name: 'session and agent ids', source: 'session_id == "sess-1" && agent_id == ""', expect: true },
  { name: 'now', source: 'now > timestamp("2026-01-01T00:00:00Z")', expect: true },
  {
    name: 'new_args',
    source: 'new_args.command.startsWith("git ")',
    view: { new_args: { command: 'git log' } },
    expect: true,
  },
  { name: 'has() on a missing argument', source: 'has(args.url)', expect: false },
  { name: 'no prototype behind args', source: 'has(args.constructor) || has(args.toString)', expect: false },
  {
    name: 'a JSON number is a double',
    source: 'args.count + 1.0 == 4.0',
    view: { args: { count: 3 } },
    expect: true,
  },
  {
    name: 'numbers compare across int and double',
    source: 'args.count > 2',
    view: { args: { count: 3 } },
    expect: true,
  },

  // Run-time errors are values, never exceptions.
  { name: 'a missing key', source: 'args.url.startsWith("https://")', expect: { error: /No such key: url/ } },
  {
    name: 'int + double',
    source: 'args.count + 1 == 4',
    view: { args: { count: 3 } },
    expect: { error: /no such overload/ },
  },
  {
    name: 'a dyn result that is not a bool',
    source: 'args.command',
    expect: { error: /not a bool \(got string\)/ },
  },
  {
    name: 'a pattern from the arguments that RE2 refuses',
    source: 'args.command.matches(args.pattern)',
    view: { args: { command: 'x', pattern: '(?=x)' } },
    expect: { error: /unsupported Perl syntax/ },
  },
  {
    name: 'a match over the step budget (states × characters)',
    source: 'args.command.matches("(?:a?){40}a{40}$")',
    view: { args: { command: `${'a'.repeat(100_000)}!` } },
    expect: { error: /needs more than 2000000 steps/ },
  },
  { name: 'division by zero', source: '1 / (size(args) - 1) == 1', expect: { error: /division by zero/ } },

  // Compile-time refusals: a config error naming the path.
  { name: 'syntax error', source: 'tool ==', expect: { compileError: /syntax error/ } },
  {
    name: 'unknown variable',
    source: 'toool == "Bash"',
    expect: { compileError: /type error: Unknown variable: toool/ },
  },
  { name: 'type error', source: 'tool + 1 == 2', expect: { compileError: /type error: .*string \+ int/ } },
  { name: 'unknown function', source: 'tool.shout() == "BASH"', expect: { compileError: /type error/ } },
  {
    name: 'a result that cannot be a bool',
    source: 'tool',
    expect: { compileError: /must be a bool expression, is string/ },
  },
  {
    name: 'matches on a non-string',
    source: 'claims.sub.size().matches("x")',
    expect: { compileError: /type error: .*matches/ },
  },
  {
    name: 'a literal pattern RE2 refuses',
    source: 'args.command.matches("(a)\\\\1")',
    expect: { compileError: /invalid escape sequence/ },
  },
  {
    name: 'comprehensions over call data nested',
    source: 'args.exists(k, args.exists(j, k != j && args[k] == args[j]))',
    expect: { compileError: /may not nest/ },
  },
  {
    name: 'over the length limit',
    source: `tool == "${'x'.repeat(MAX_SOURCE_LENGTH)}"`,
    expect: { compileError: /longer than/ },
  },
  {
    name: 'over the node limit',
    source: `size([${'1,'.repeat(MAX_AST_NODES)}1]) > 0`,
    expect: { compileError: /syntax error: .*maxAstNodes/ },
  },
  { name: 'empty', source: '  ', expect: { compileError: /empty condition/ } },
];

export type Outcome = boolean | { error: string } | { compileError: string };

/** Compiles and evaluates one case as a caller would; the outcome, never an exception. */
export function runCase(c: ConditionCase): Outcome {
  let compiled: ReturnType<typeof compileCondition>;
  try {
    compiled = compileCondition(c.source, PATH);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const issue = err.issues[0]!;
    if (issue.path !== PATH) throw new Error(`config error names ${issue.path}, not ${PATH}`);
    return { compileError: err.message };
  }
  return evaluate(compiled, { ...BASE_VIEW, ...c.view });
}

/** Whether an outcome is what the case expects (RegExps match the message). */
export function holds(expected: Expected, outcome: Outcome): boolean {
  if (typeof expected === 'boolean') return outcome === expected;
  if (typeof outcome !== 'object') return false;
  if ('error' in expected) return 'error' in outcome && expected.error.test(outcome.error);
  return 'compileError' in outcome && expected.compileError.test(outcome.compileError);
}
