/**
 * CPU per call that conditional grants add to the policy step (applyPolicy on a hook's answer), as
 * the gateway runs it: a Claude Code permission request for Bash that the hook approves, decided
 * under `approve_tools` with 0 conditions (a plain name), 1 that holds, and 20 of which the first
 * 19 are false and the last holds (every one evaluated: the worst case for a call that is granted),
 * and the same 20 on a call none holds for (refused, the audit detail built). Conditions are
 * compiled once with the config, as at load; the figure is CPU time (process.cpuUsage), not wall.
 */
import { compileConfig } from '../../src/config/compile.js';
import { applyPolicy, type CallFacts, effectivePolicy } from '../../src/policy/index.js';
import { cpuMicrosPerCall } from './stats.js';

const GRANTING = 'args.command.startsWith("git status") || args.command.startsWith("git diff")';

/** Nineteen conditions of the kinds people write, each false on `git status --short`. */
const FALSE_ONES = [
  'args.command.startsWith("npm test")',
  'args.command.startsWith("ls ")',
  'args.command == "pwd"',
  'args.command.matches("^cargo (build|test)( |$)")',
  'args.command.matches("^go (vet|test) ")',
  'args.command.startsWith("git log") && !args.command.contains("|")',
  'args.command.matches("^make( [a-z-]+)?$")',
  'args.command.startsWith("cat ") && !args.command.contains(".env")',
  'args.command.startsWith("rg ")',
  'args.command.startsWith("grep ")',
  'args.command.startsWith("node --version")',
  'args.command.matches("^python3? -m pytest")',
  'args.command.startsWith("docker ps")',
  'args.command.startsWith("kubectl get ")',
  'args.command.matches("(?i)^echo [a-z ]+$")',
  'args.command.startsWith("head ") || args.command.startsWith("tail ")',
  'args.command.size() < 4',
  'claims.sub == "ci-bot"',
  'host == "codex" && args.command.startsWith("git ")',
];

function hookWith(approveTools: unknown[]) {
  const config = compileConfig(
    {
      tenants: {
        acme: {
          auth: { keys: [{ alg: 'HS256', secret: 'bench-grant-secret-0123456789abcdefghij' }] },
          hooks: {
            guard: {
              backend: { type: 'module', module: 'x.js' },
              modes: ['approve'],
              grants: { approve_tools: approveTools },
            },
          },
        },
      },
    },
    (r) => r,
  );
  return config.tenants.get('acme')!.hooks.get('guard')!;
}

const FACTS: CallFacts = { host: 'claude-code', claims: { sub: 'dev' }, now: Date.now() };
const ANSWER = { approved: true };

/** One policy step on the hook's approval of `command` under `approveTools`, compiled once, as at load. */
export function grantCall(approveTools: unknown[], command: string): () => ReturnType<typeof applyPolicy> {
  const policy = effectivePolicy(hookWith(approveTools));
  const params = { meta: { SessionKey: 's', AgentID: 'a' }, tool: 'Bash', arguments: { command } };
  return () =>
    applyPolicy('hook.approve_tool', policy, params, params, ANSWER, { hostApproves: true }, FACTS);
}

/** Median CPU µs per call of deciding `command` under `approveTools`, over 7 batches of `n`. */
function cpuPerCall(approveTools: unknown[], command: string, n = 20_000): { us: number; verdict: string } {
  const once = grantCall(approveTools, command);
  const first = once();
  const verdict = first.ok && 'approved' in first.result ? 'approved' : 'refused';
  return { us: cpuMicrosPerCall(once, n), verdict };
}

/** A name, `approve_tools`, the command (bench/policy-cost-workerd.ts runs them too); the first is the base. */
export function grantCases(): [string, unknown[], string][] {
  const entry = (when: string) => ({ tool: 'Bash', when });
  return [
    ['0 conditions (approve_tools: [Bash])', ['Bash'], 'git status --short'],
    ['1 condition, holds', [entry(GRANTING)], 'git status --short'],
    ['20 conditions, the 20th holds', [...FALSE_ONES.map(entry), entry(GRANTING)], 'git status --short'],
    ['20 conditions, none holds (refused)', [...FALSE_ONES.map(entry), entry(GRANTING)], 'git push --force'],
  ];
}

export function grantCost(): string[] {
  const cases = grantCases();
  const base = cpuPerCall(['Bash'], 'git status --short').us;
  return cases.map(([name, tools, command]) => {
    const { us, verdict } = cpuPerCall(tools, command);
    return `${name}: ${us.toFixed(2)} µs CPU per call (${verdict}; +${(us - base).toFixed(2)} µs over a plain name)`;
  });
}
