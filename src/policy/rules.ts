/**
 * Gateway rules on one tool call, before the hook is asked: which rules apply (by tool name or
 * kind), whose conditions hold, and the verdict they give. Pure: the caller builds the view (once,
 * and only when a rule with a condition applies) and turns the verdict into the host's answer.
 *
 * Precedence does not depend on order: a deny beats an ask_human, which beats an ask, which beats an allow, so a tenant's
 * "never" cannot be undone by a hook's later "always". A condition that fails at run time fails
 * closed: on a deny or an ask rule it denies; on an allow rule it allows nothing. Shadow rules are
 * evaluated the same way and reported, but never decide.
 */
import type { CompiledRule, RuleAction } from '../config/rules.js';
import { evaluate } from './conditions/evaluate.js';
import type { ConditionView } from './conditions/view.js';

/** One rule that applied to the call: its condition held, or failed (`error`). */
export interface RuleHit {
  rule: CompiledRule;
  /** What the hit does: the rule's action, or `deny` for a deny/ask rule whose condition failed. */
  action: RuleAction;
  /** The condition's run-time error, when it failed. */
  error?: string;
}

export interface RulesOutcome {
  /** The enforcing hit that decides the call; absent when no enforcing rule applies. */
  verdict?: RuleHit;
  /** Every rule that applied (enforcing and shadow), in config order. */
  hits: RuleHit[];
}

const RANK: Record<RuleAction, number> = { deny: 4, ask_human: 3, ask: 2, allow: 1 };

/** Whether a rule names this call: by its tool name ("*" for any) or by the tool's kind. */
export function ruleSelects(rule: CompiledRule, tool: string, kind: string | undefined): boolean {
  return rule.anyTool || rule.tools.has(tool) || (kind !== undefined && rule.kinds.has(kind));
}

/**
 * The rules' outcome on a call, or undefined when none applies (the common case costs one pass
 * of set lookups and no view).
 */
export function evaluateRules(
  rules: readonly CompiledRule[],
  tool: string,
  kind: string | undefined,
  view: () => ConditionView,
): RulesOutcome | undefined {
  let outcome: RulesOutcome | undefined;
  let built: ConditionView | undefined;
  for (const rule of rules) {
    if (!ruleSelects(rule, tool, kind)) continue;
    let hit: RuleHit | undefined;
    if (!rule.condition) {
      hit = { rule, action: rule.action };
    } else {
      built ??= view();
      const result = evaluate(rule.condition, built);
      if (result === true) hit = { rule, action: rule.action };
      else if (result !== false) {
        hit = { rule, action: rule.action === 'allow' ? 'allow' : 'deny', error: result.error };
      }
    }
    if (!hit) continue;
    outcome ??= { hits: [] };
    outcome.hits.push(hit);
    // A failed allow allows nothing; a shadow rule never decides.
    if (rule.mode === 'shadow' || (hit.error !== undefined && hit.action === 'allow')) continue;
    if (!outcome.verdict || RANK[hit.action] > RANK[outcome.verdict.action]) outcome.verdict = hit;
  }
  return outcome;
}

/** What the host is told about a hit: the rule's reason, or why its condition failed. */
export function hitReason(hit: RuleHit): string {
  if (hit.error !== undefined) return `hookgate: rule "${hit.rule.name}" failed: ${hit.error}`;
  return hit.rule.reason;
}

/** How a rule that applied figures in the decision (see RuleMark in src/server/decision.ts). */
export function ruleEffect(
  outcome: RulesOutcome,
  hit: RuleHit,
): 'decided' | 'would' | 'overruled' | 'failed' {
  if (hit === outcome.verdict) return 'decided';
  if (hit.rule.mode === 'shadow') return 'would';
  return hit.error !== undefined ? 'failed' : 'overruled';
}
