/**
 * CPU per call that gateway rules add before the hook is asked (decideByRules, as the call path
 * runs it), on a Claude Code Bash call: no rules; 1 rule whose condition is false; 20 rules of the
 * kinds people write, every one selecting the call and evaluated, none deciding (the worst case
 * for a call that goes on to the hook); the same 20 with the last one denying; 20 rules naming
 * other tools (selection only, no view built); and a `(a+)+$` pattern (catastrophic for a
 * backtracking engine) on growing input, to show it stays linear. Rules are compiled once with
 * the config, as at load; the figure is CPU time (process.cpuUsage), not wall.
 */
import { compileConfig } from '../../src/config/compile.js';
import { type CallFacts, effectivePolicy } from '../../src/policy/index.js';
import { decideByRules } from '../../src/policy/rule-decision.js';
import { cpuMicrosPerCall } from './stats.js';

const FALSE_ONES = [
  'call.command.matches("rm\\\\s+-[a-z]*r[a-z]*f")',
  'call.command.contains("git push --force")',
  'call.command.matches("curl[^|]*\\\\|\\\\s*(ba)?sh")',
  'call.command.contains(".env")',
  'call.command.matches("(?i)drop\\\\s+table")',
  'call.command.startsWith("sudo ")',
  'call.command.matches("\\\\bdd\\\\s+if=")',
  'call.command.contains("mkfs")',
  'call.command.matches(":\\\\(\\\\)\\\\s*\\\\{")',
  'call.command.contains("chmod 777")',
  'call.command.matches("id_rsa|\\\\.pem\\\\b")',
  'call.command.startsWith("shutdown")',
  'call.command.contains("> /dev/sd")',
  'call.command.matches("git\\\\s+reset\\\\s+--hard")',
  'call.command.contains("npm publish")',
  'call.command.matches("kubectl\\\\s+delete")',
  'call.command.contains("terraform destroy")',
  'call.command.size() > 10000',
  'claims.sub == "intruder"',
  'host == "codex" && call.command.contains("--yolo")',
];

function hookWith(rules: unknown[]) {
  const config = compileConfig(
    {
      tenants: {
        acme: {
          auth: { keys: [{ alg: 'HS256', secret: 'bench-rule-secret-0123456789abcdefghijk' }] },
          hooks: { guard: { backend: { type: 'rules' }, modes: ['tool'], rules } },
        },
      },
    },
    (r) => r,
  );
  return config.tenants.get('acme')!.hooks.get('guard')!;
}

const FACTS: CallFacts = { host: 'claude-code', claims: { sub: 'dev' }, now: Date.now() };

/** One decision of `rules` on a Claude Code Bash call with `args`, compiled once, as at load. */
export function ruleCall(
  rules: unknown[],
  args: Record<string, unknown>,
): () => ReturnType<typeof decideByRules> {
  const policy = effectivePolicy(hookWith(rules));
  const params = { meta: { SessionKey: 's', AgentID: 'a' }, tool: 'Bash', arguments: args };
  return () => decideByRules(policy, 'hook.before_tool', params, { hostApproves: true }, FACTS);
}

/** Median CPU µs per call of the rules' decision on `args`, over 7 batches of `n`. */
function cpuPerCall(
  rules: unknown[],
  args: Record<string, unknown>,
  n = 20_000,
): { us: number; verdict: string } {
  const once = ruleCall(rules, args);
  const first = once();
  const verdict = first?.answer ? String(first.answer.action) : 'ask the hook';
  return { us: cpuMicrosPerCall(once, n), verdict };
}

const rule = (when: string, i: number, action = 'deny') => ({ name: `r${i}`, kind: 'shell', when, action });

export const GIT_STATUS = { command: 'git status --short' };
/** The floor: one rule naming another tool (selection only, no view built). */
export const FLOOR_RULES = [{ name: 'other', tool: 'Write', action: 'deny' }];

/** The cases after the floor: a name, the rules, the call's arguments (bench/policy-cost-workerd.ts runs them too). */
export function ruleCases(): [string, unknown[], Record<string, unknown>][] {
  const twenty = FALSE_ONES.map((w, i) => rule(w, i));
  return [
    ['1 rule, false', [rule('call.command.matches("rm\\\\s+-[a-z]*r[a-z]*f")', 0)], GIT_STATUS],
    ['20 rules, all evaluated, none decides', twenty, GIT_STATUS],
    [
      '20 rules, the last denies',
      [...twenty.slice(0, 19), rule('call.command.startsWith("git ")', 19)],
      GIT_STATUS,
    ],
    [
      '20 rules naming other tools (selection only)',
      FALSE_ONES.map((w, i) => ({
        name: `o${i}`,
        tool: 'Write',
        when: w.replaceAll('call.command', 'args.path'),
        action: 'deny',
      })),
      GIT_STATUS,
    ],
  ];
}

export function ruleCost(): string[] {
  const git = GIT_STATUS;
  const lines: string[] = [];
  const base = cpuPerCall([rule('call.command == "never"', 0)], git).us;
  const none = cpuPerCall(FLOOR_RULES, git).us;
  lines.push(`no rule selects the call: ${none.toFixed(2)} µs CPU per call (the floor)`);
  const cases = ruleCases();
  for (const [name, rules, args] of cases) {
    const { us, verdict } = cpuPerCall(rules, args);
    lines.push(
      `${name}: ${us.toFixed(2)} µs CPU per call (${verdict}; +${(us - none).toFixed(2)} µs over the floor)`,
    );
  }
  lines.push(`(1 rule with a trivial false condition: ${base.toFixed(2)} µs)`);
  for (const size of [30, 1_000, 10_000, 100_000]) {
    const input = `${'a'.repeat(size)}!`;
    const { us } = cpuPerCall(
      [rule('call.command.matches("(a+)+$")', 0)],
      { command: input },
      size > 10_000 ? 200 : 2_000,
    );
    lines.push(
      `(a+)+$ on ${size + 1} characters: ${us.toFixed(1)} µs CPU per call (${(us / (size + 1)).toFixed(3)} µs per character)`,
    );
  }
  return lines;
}

// (`process` is Node's: the workerd bench bundles this file too.)
if (typeof process !== 'undefined' && import.meta.url === `file://${process.argv[1]}`) {
  for (const line of ruleCost()) process.stdout.write(`${line}\n`);
}
