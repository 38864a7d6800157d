import type { Violation } from '../policy/index.js';
import type { RuleMarkValue } from '../policy/rule-decision.js';

/**
 * What the gateway did with one hook call, from the gateway's side:
 * - `passed`: the hook's answer went to the host as the hook gave it (a hook's own deny included);
 * - `changed`: policy took part of the answer out (a refused rewrite, respond, injection…) and the
 *   rest went on;
 * - `refused`: the gateway answered with a refusal of its own: the call named a tool the caller may
 *   not use, or a violation under `on_violation: deny`;
 * - `mode_not_granted`: never forwarded; the gateway answered as a host without the hook would;
 * - `rate_limited`: a tenant or hook limit refused the call before the hook was asked;
 * - `failed`: the hook could not answer (down, slow, a bad answer) and its failure mode did;
 * - `ruled`: a gateway rule answered (deny, ask or allow) and the hook was not asked.
 */
export const DECISION_KINDS = [
  'ruled',
  'passed',
  'changed',
  'refused',
  'mode_not_granted',
  'rate_limited',
  'failed',
] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/**
 * One hook call's decision: built once on the call path, then read by the audit lines, the
 * counters and the decision record, so none of them can tell a different story. Plain data: the
 * digests and the host-shaped text are derived from it only when a record is written.
 */
export interface Decision {
  id: string;
  /** Epoch ms when the call reached the gateway's call path. */
  time: number;
  tenant: string;
  hook: string;
  /** The host protocol the call came in ("picoclaw" on the native routes). */
  dialect: string;
  method: string;
  tool?: string;
  requestId?: string;
  /** The W3C traceparent the host sent with the call, if any. */
  traceparent?: string;
  /** The token's `tools` claim, which narrows the hook's tools for this call. */
  tokenTools?: readonly string[];
  /** The revision of the config that decided (GatewayConfig.revision). */
  configRevision: string;
  kind: DecisionKind;
  /** The host's params as they came in; not copied, so never mutate it. */
  params: Record<string, unknown>;
  /** What the hook answered, as read off the wire; absent when it was not asked or did not answer. */
  hookAnswer?: unknown;
  /** What left for the host, in PicoClaw's terms; absent when a limit refused the call. */
  answer?: Record<string, unknown>;
  /** What the host was sent, in its own terms (see CallOrigin.describeAnswer); set when needed. */
  answered?: string;
  /** The grants and rules that changed or refused the answer. */
  violations: Violation[];
  /** The gateway rules that applied to the call, enforcing or shadow, in config order. */
  rules?: RuleMark[];
  /** What shadow-mode grant conditions would have refused (nothing was refused). */
  would?: string[];
  /** A person's decision the gateway held the call for (an ask_human rule). */
  approval?: {
    id: string;
    decision: 'approved' | 'denied' | 'expired';
    approver?: string;
    reason?: string;
    waitedMs: number;
  };
  /** The limit that refused the call. */
  limit?: { name: string; retryAfterMs: number };
  /** Why the hook's failure mode answered. */
  failure?: { code: string; why: string; onFailure: 'open' | 'closed' };
  /** performance.now() when the call path took the call, and the time spent waiting for the hook. */
  startedAt: number;
  /** performance.now() when the hook was asked; absent when it was not. */
  hookStartedAt?: number;
  hookMs: number;
  /** Total time through the gateway, set when the decision is final. */
  totalMs: number;
}

/** A gateway rule that applied to a call, and what came of it (decided, would, overruled, failed). */
export type RuleMark = RuleMarkValue;

/** The kind of a call the hook answered, from the policy's violations and what is sent instead. */
export function answeredKind(
  violations: readonly Violation[],
  answer: Record<string, unknown>,
): DecisionKind {
  if (violations.length === 0) return 'passed';
  // A violation under on_violation: deny (before_tool) sends the gateway's own denial.
  return answer.action === 'deny_tool' ? 'refused' : 'changed';
}

/** hookgate_calls_total's outcome for a decision (the labels it has always had). */
export function callOutcome(d: Decision): string | undefined {
  switch (d.kind) {
    case 'passed':
      return 'ok';
    case 'changed':
      return 'refused';
    case 'refused':
      return d.violations.some((v) => v.rule === 'tool_not_granted') ? 'tool_not_granted' : 'refused';
    case 'mode_not_granted':
    case 'failed':
    case 'ruled':
      return d.kind;
    default:
      // Refused by a limit: counted in hookgate_rate_limited_total, never as a call answered.
      return undefined;
  }
}
