import type { GatewayConfig, HookRuntime } from '../config/runtime.js';
import { askAnswer } from '../policy/answers.js';
import { decideByRules, rulesApplyTo } from '../policy/rule-decision.js';
import { canonicalJson } from '../lib/canonical-json.js';
import {
  applyPolicy,
  continueAnswer,
  denyApproval,
  effectivePolicy,
  failureAnswer,
  type HostTraits,
  type TraitsOf,
  minimiseParams,
} from '../policy/index.js';
import { isCallMethod, Method, modeOf } from '../protocol/methods.js';
import { answeredKind, type DecisionKind } from './decision.js';
import { type DecisionRecordV1, verdictOf } from './decision-record.js';

/** A grant, rule or limit that decided; replay adds `hook_removed`. */
export interface ReplayViolation {
  rule: string;
  tool?: string;
  detail: string;
}

export type Redecided =
  | {
      ok: true;
      kind: DecisionKind;
      answer: Record<string, unknown>;
      violations: ReplayViolation[];
      /** Kind or answer differs from the record's. */
      changed: boolean;
    }
  | { ok: false; why: string };

/**
 * What `config` decides for a recorded call, with the hook's recorded answer standing in for the
 * hook: the steps of the gateway's call path that depend on the config (mode gate, minimisation,
 * grants) and nothing that depends on the moment (limits, a hook that failed). Pure.
 *
 * Every dialect route hands the gateway PicoClaw-shaped params, so a record's params and answers
 * are in PicoClaw's terms whatever the host; what differs per host is its traits (whether it has an
 * approval of its own, whether it merges a rewrite), looked up by the record's dialect in
 * `traitsOf`, the same table the routes build their CallOrigin from. The core stays host-neutral:
 * the caller hands the table in.
 *
 * The hook's tools are narrowed by the token's `tools` claim the record carries, as they were then.
 * A record this cannot re-decide says why.
 */
export function redecide(record: DecisionRecordV1, config: GatewayConfig, traitsOf: TraitsOf): Redecided {
  const host = traitsOf(record.dialect);
  if (!host) return { ok: false, why: `dialect ${record.dialect} is not one this hookgate's routes speak` };
  if (!isCallMethod(record.method)) return { ok: false, why: `${record.method} is not a hook call` };
  if (record.kind === 'rate_limited' || record.kind === 'failed')
    return { ok: false, why: `a ${record.kind} call has no hook answer to replay` };
  if (record.kind === 'refused' && record.violations.some((v) => v.rule === 'tool_not_granted'))
    return { ok: false, why: 'refused before the hook was asked; no hook answer to replay' };
  const hook = config.tenants.get(record.tenant)?.hooks.get(record.hook);
  if (!hook) {
    return {
      ok: true,
      kind: 'refused',
      answer: {},
      violations: [{ rule: 'hook_removed', detail: 'no such hook in the new config' }],
      changed: true,
    };
  }
  const method = record.method;
  const params = record.params;
  const mode = modeOf(method);
  let kind: DecisionKind;
  let answer: Record<string, unknown>;
  let violations: ReplayViolation[] = [];
  const modeGranted = mode !== undefined && hook.modes.has(mode);
  const ruled = modeGranted && params !== undefined ? rulesDecide(record, hook, params, host) : undefined;
  if (!mode || !hook.modes.has(mode)) {
    kind = 'mode_not_granted';
    // As the gateway answers: a host with an approval of its own gets no verdict and asks by itself.
    answer =
      method === Method.ApproveTool && !host.hostApproves
        ? denyApproval(`hookgate: hook "${hook.name}" is not granted the approve mode`)
        : continueAnswer();
    violations = [{ rule: 'mode_not_granted', detail: `mode ${mode} not granted` }];
  } else if (ruled) {
    // The new config's rules decide without the hook: no recorded answer is needed.
    kind = 'ruled';
    answer = ruled.answer;
    violations = ruled.violations;
  } else if (hook.backend.type === 'rules') {
    kind = 'passed';
    answer =
      method === Method.ApproveTool && !host.hostApproves
        ? denyApproval(`hookgate: no rule of hook "${hook.name}" approves this call`)
        : continueAnswer();
  } else {
    if (params === undefined || !('hook_answer' in record))
      return {
        ok: false,
        why:
          record.kind === 'mode_not_granted' || record.kind === 'ruled'
            ? 'the hook was not asked then; what it would answer is unknown'
            : 'the record carries no params and hook answer (conversation_access or include_args)',
      };
    const shown = hook.grants.conversationAccess
      ? params
      : (minimiseParams(method, params) as Record<string, unknown>);
    let outcome: ReturnType<typeof applyPolicy>;
    try {
      const policy = effectivePolicy(hook, record.token_tools ?? undefined);
      // Grant conditions see the recorded host and time; a record carries no claims, so a
      // condition that reads them is decided on none.
      outcome = applyPolicy(method, policy, params, shown, record.hook_answer, host, recordFacts(record));
    } catch (err) {
      outcome = { ok: false, why: `answer could not be checked: ${String(err)}` };
    }
    if (!outcome.ok) {
      kind = 'failed';
      answer = failureAnswer(hook, method, 'unavailable or invalid answer', host.hostApproves);
    } else {
      kind = answeredKind(outcome.violations, outcome.result);
      answer = outcome.result;
      violations = outcome.violations;
    }
  }
  return finish(record, kind, answer, violations);
}

/** The new config's rules on a recorded call, when an enforcing one answers it. */
function rulesDecide(
  record: DecisionRecordV1,
  hook: HookRuntime,
  params: Record<string, unknown>,
  host: Readonly<HostTraits>,
): { answer: Record<string, unknown>; violations: ReplayViolation[] } | undefined {
  if (hook.rules.length === 0 || !rulesApplyTo(record.method)) return undefined;
  const policy = effectivePolicy(hook, record.token_tools ?? undefined);
  const decided = decideByRules(policy, record.method, params, host, recordFacts(record));
  if (decided?.person) {
    // A person's decision cannot be replayed: what is known is that the call would be held.
    return {
      answer: askAnswer(decided.person.reason),
      violations: [
        {
          rule: 'gateway_rule',
          tool: record.tool ?? undefined,
          detail: `rule "${decided.person.rule}" would ask a person`,
        },
      ],
    };
  }
  return decided?.answer ? { answer: decided.answer, violations: decided.violations } : undefined;
}

/** What conditions see of a recorded call: its host and time; a record carries no claims. */
function recordFacts(record: DecisionRecordV1) {
  return { host: record.dialect, claims: {}, now: Date.parse(record.time) };
}

function finish(
  record: DecisionRecordV1,
  kind: DecisionKind,
  answer: Record<string, unknown>,
  violations: ReplayViolation[],
): Redecided {
  const sameAnswer =
    record.answer === undefined
      ? record.verdict === verdictOf(answer)
      : canonicalJson(record.answer) === canonicalJson(answer);
  return { ok: true, kind, answer, violations, changed: kind !== record.kind || !sameAnswer };
}
