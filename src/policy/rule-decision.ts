/**
 * The gateway's rules on one tool call, as a decision: the answer when an enforcing rule decides
 * (the hook is then not asked), and every rule that applied, shadow ones included, with what came
 * of it. Pure, like applyPolicy: the call path (src/server/gateway.ts) records it on the call's
 * Decision, and the Node and workerd suites run one table of cases through it.
 */
import { Method } from '../protocol/methods.js';
import { continueAnswer } from './answers.js';
import { type CallFacts, callView } from './grant-check.js';
import { applyPolicy, type HostTraits } from './index.js';
import { ruleAnswer } from './rule-answer.js';
import { evaluateRules, hitReason, ruleEffect } from './rules.js';
import { kindOf } from './tool-kinds.js';
import type { EffectivePolicy, Violation } from './types.js';

/** A rule that applied to a call, and what came of it (see RuleMark in src/server/decision.ts). */
export interface RuleMarkValue {
  name: string;
  path: string;
  action: 'deny' | 'ask_human' | 'ask' | 'allow';
  mode: 'enforce' | 'shadow';
  effect: 'decided' | 'would' | 'overruled' | 'failed';
  error?: string;
}

export interface RuleDecision {
  /** Every rule that applied, in config order. */
  marks: RuleMarkValue[];
  /** Present when an enforcing rule answered the call: what the host is sent. */
  answer?: Record<string, unknown>;
  /** The refusals to audit: the deciding deny or ask, or approve_tools refusing an allow. */
  violations: Violation[];
  /** Present when the deciding rule asks a person through the gateway: the call is to be parked. */
  person?: { rule: string; reason: string };
}

/** Whether rules apply to a method at all: the tool calls a host waits on. */
export function rulesApplyTo(method: string): boolean {
  return method === Method.BeforeTool || method === Method.ApproveTool;
}

/** The rules' decision on a call, or undefined when no rule applies to it. */
export function decideByRules(
  policy: EffectivePolicy,
  method: string,
  original: Record<string, unknown>,
  host: HostTraits,
  facts: CallFacts,
): RuleDecision | undefined {
  const hook = policy.hook;
  const tool = typeof original.tool === 'string' ? original.tool : '';
  const outcome = evaluateRules(hook.rules, tool, kindOf(facts.host, tool), () =>
    callView({ tenant: hook.tenant, hook: hook.name, facts }, tool, original.arguments, original.meta),
  );
  if (!outcome) return undefined;
  const marks: RuleMarkValue[] = outcome.hits.map((hit) => ({
    name: hit.rule.name,
    path: hit.rule.path,
    action: hit.rule.action,
    mode: hit.rule.mode,
    effect: ruleEffect(outcome, hit),
    ...(hit.error !== undefined ? { error: hit.error } : {}),
  }));
  const verdict = outcome.verdict;
  if (!verdict) return { marks, violations: [] };
  const ruled = ruleAnswer(method, verdict, host.hostApproves === true);
  if ('person' in ruled) {
    return { marks, violations: [], person: { rule: verdict.rule.name, reason: ruled.person.reason } };
  }
  if ('answer' in ruled) {
    const violations: Violation[] =
      verdict.action === 'allow'
        ? []
        : [
            {
              rule: 'gateway_rule',
              tool,
              detail: `rule "${verdict.rule.name}" (${verdict.rule.path}) ${verdict.action === 'deny' ? 'denies' : 'asks'}: ${hitReason(verdict)}`,
            },
          ];
    return { marks, answer: ruled.answer, violations };
  }
  // An allow on an approval is checked as a hook's would be: never a way around approve_tools.
  const checked = applyPolicy(method, policy, original, original, ruled.approval, host, facts);
  if (!checked.ok) return { marks, answer: continueAnswer(), violations: [] };
  if (checked.violations.length > 0) {
    const mark = marks[outcome.hits.indexOf(verdict)];
    if (mark) mark.effect = 'overruled';
  }
  return { marks, answer: checked.result, violations: checked.violations };
}
