/**
 * `hookgate rules test`: a config's rules and grants run against sample calls, without a gateway
 * or a hook (like `opa test`). Pure: the CLI reads the files, this decides and says why.
 *
 * A case's outcome, in the words a policy author thinks in:
 * - `deny`: the host is told no (a rule's deny, a hook's recorded deny, a denied approval);
 * - `ask`: a rule asks for a person (`ask`: the host's own ask or approval path; `ask_human`:
 *   through the gateway's approvals);
 * - `allow`: a rule allows, or the recorded hook answer (`answer`) approves, responds or rewrites
 *   and the grants let it through;
 * - `continue`: nothing objects — no rule decided, and no recorded answer changes the call.
 */
import { z } from 'zod';
import type { GatewayConfig } from '../config/runtime.js';
import { Method } from '../protocol/methods.js';
import { askedPerson } from './answers.js';
import type { CallFacts } from './grant-check.js';
import { applyPolicy, type TraitsOf } from './index.js';
import { decideByRules } from './rule-decision.js';
import { effectivePolicy } from './types.js';

export const RULE_TEST_OUTCOMES = ['deny', 'ask', 'allow', 'continue'] as const;
export type RuleTestOutcome = (typeof RULE_TEST_OUTCOMES)[number];

const caseSchema = z
  .object({
    name: z.string().min(1),
    tenant: z.string().min(1),
    hook: z.string().min(1),
    host: z.string().min(1).default('picoclaw'),
    /** The hook method: a tool call (before_tool, the default) or its approval (approve_tool). */
    method: z.enum(['before_tool', 'approve_tool']).default('before_tool'),
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()).default({}),
    claims: z.record(z.string(), z.unknown()).default({}),
    /** The hook's answer, as recorded: to test grant conditions on what a hook says. */
    answer: z.record(z.string(), z.unknown()).optional(),
    expect: z.enum(RULE_TEST_OUTCOMES),
  })
  .strict();

export const ruleTestFileSchema = z.object({ cases: z.array(caseSchema).min(1) }).strict();
export type RuleTestCase = z.infer<typeof caseSchema>;

export interface RuleTestResult {
  name: string;
  expected: RuleTestOutcome;
  got: RuleTestOutcome;
  ok: boolean;
  /** Which rule or grant decided, or why the case could not run. */
  why: string;
}

/** One case under `config`. `now` is the time conditions see (fixed, so a test is repeatable). */
export function runRuleTestCase(
  config: GatewayConfig,
  c: RuleTestCase,
  now: number,
  traitsOf: TraitsOf,
): RuleTestResult {
  const result = (got: RuleTestOutcome, why: string): RuleTestResult => ({
    name: c.name,
    expected: c.expect,
    got,
    ok: got === c.expect,
    why,
  });
  const tenant = config.tenants.get(c.tenant);
  const hook = tenant?.hooks.get(c.hook);
  if (!hook) return { ...result('continue', `no hook ${c.tenant}/${c.hook} in the config`), ok: false };
  const method = c.method === 'approve_tool' ? Method.ApproveTool : Method.BeforeTool;
  const mode = c.method === 'approve_tool' ? 'approve' : 'tool';
  if (!hook.modes.has(mode)) {
    return { ...result('continue', `hook ${c.tenant}/${c.hook} does not have the ${mode} mode`), ok: false };
  }
  const host = traitsOf(c.host);
  if (!host) {
    return {
      ...result('continue', `no host "${c.host}" (a dialect label: picoclaw, claude-code, …)`),
      ok: false,
    };
  }
  const facts: CallFacts = { host: c.host, claims: c.claims, now, would: hook.shadow ? [] : undefined };
  const params = { meta: {}, tool: c.tool, arguments: c.args };
  const policy = effectivePolicy(hook);
  const ruled = decideByRules(policy, method, params, host, facts);
  const shadowNote = (ruled?.marks ?? [])
    .filter((m) => m.effect === 'would')
    .map((m) => `; shadow: would ${m.action} (rule "${m.name}")`)
    .join('');
  if (ruled?.person)
    return result('ask', `rule "${ruled.person.rule}": a person, through hookgate${shadowNote}`);
  if (ruled?.answer) {
    const decided = ruled.marks.find((m) => m.effect === 'decided' || m.effect === 'overruled');
    const by = decided ? `rule "${decided.name}"` : 'rules';
    const refusal = ruled.violations.find((v) => v.rule !== 'gateway_rule');
    // A rule's allow on a tool call is "no objection" on the wire, and `allow` in the author's words.
    const got =
      decided?.action === 'allow' && decided.effect === 'decided' ? 'allow' : outcomeOf(ruled.answer);
    return result(got, `${by}${refusal ? ` (${refusal.detail})` : ''}${shadowNote}`);
  }
  if (c.answer === undefined) {
    if (hook.backend.type === 'rules' && method === Method.ApproveTool && !host.hostApproves) {
      return result('deny', `no rule approves it${shadowNote}`);
    }
    return result(
      'continue',
      `no rule decided${hook.backend.type === 'rules' ? '' : '; the hook would be asked'}${shadowNote}`,
    );
  }
  const checked = applyPolicy(method, policy, params, params, c.answer, host, facts);
  if (!checked.ok)
    return result('continue', `the recorded answer is not one the host could read: ${checked.why}`);
  const refused = checked.violations.map((v) => `${v.rule}: ${v.detail}`).join('; ');
  const would = (facts.would ?? []).map((w) => `; shadow: ${w}`).join('');
  return result(
    outcomeOf(checked.result),
    `${refused ? `refused: ${refused}` : 'the hook’s answer, as granted'}${shadowNote}${would}`,
  );
}

function outcomeOf(answer: Record<string, unknown>): RuleTestOutcome {
  if (askedPerson(answer) !== undefined) return 'ask';
  if ('approved' in answer) return answer.approved === true ? 'allow' : 'deny';
  switch (answer.action) {
    case 'deny_tool':
    case 'abort_turn':
    case 'hard_abort':
      return 'deny';
    case 'respond':
    case 'modify':
      return 'allow';
    default:
      return 'continue';
  }
}
