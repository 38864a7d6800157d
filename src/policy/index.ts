import { Method } from '../protocol/methods.js';
import { continueAnswer } from './answers.js';
import { decodeApproval, decodeInterceptor } from './decode.js';
import { enforceAfterLlm, enforceBeforeLlm } from './enforce-llm.js';
import { BadAnswer, enforceAfterTool, enforceBeforeTool } from './enforce-tool.js';
import { type CallFacts, callRefusal, grantCheck } from './grant-check.js';
import type { EffectivePolicy, Enforced } from './types.js';

export { continueAnswer, failureAnswer, denyApproval } from './answers.js';
export { minimiseParams } from './minimise.js';
export { effectivePolicy } from './types.js';
export { type CallFacts, callRefusal, grantCheck } from './grant-check.js';
export type { EffectivePolicy, Enforced, PolicyRule, Violation } from './types.js';

export type PolicyOutcome = ({ ok: true } & Enforced) | { ok: false; why: string };

/** What the policy needs to know about the host a call came from. */
export interface HostTraits {
  /**
   * The host has an approval of its own (a person's prompt, permission rules) that an approving
   * verdict would replace, as Claude Code's PermissionRequest `allow` does. Then `approved: true`
   * passes only for tools in `approve_tools`; otherwise the answer is the neutral one (no verdict:
   * the host asks or denies as it would without this hook). On PicoClaw, approve_tool is the host's
   * only approval and this is false.
   */
  hostApproves?: boolean;
  /**
   * The host merges a before_tool rewrite into the call's arguments key by key (Hermes), so a
   * rewrite can change or add an argument but never remove one. A rewrite that removes one is
   * refused (`rewrite_removes_argument`) rather than applied as something the hook did not say.
   */
  mergesArguments?: boolean;
}

/**
 * A host's traits by the dialect label its calls and records carry (the one table is
 * src/hosts/traits.ts); undefined for a label no route uses. Replay and `rules test` take it, so
 * the policy itself names no host.
 */
export type TraitsOf = (dialect: string) => Readonly<HostTraits> | undefined;

/**
 * Checks and rewrites a hook's answer for one call before it leaves the gateway. Pure: no I/O, no
 * clock. `original` is the host's params, `shown` what the hook was given (see minimiseParams).
 * A result PicoClaw could not decode is `ok: false` (the caller answers with the failure mode).
 * `facts` is what grant conditions see besides the params; a caller that gives none (a unit test)
 * gets an unnamed host, no claims and the clock's time.
 */
export function applyPolicy(
  method: string,
  policy: EffectivePolicy,
  original: Record<string, unknown>,
  shown: Record<string, unknown>,
  raw: unknown,
  host: HostTraits = {},
  facts: CallFacts = { host: '', claims: {}, now: Date.now() },
): PolicyOutcome {
  if (method === Method.ApproveTool) {
    const d = decodeApproval(raw);
    if (!d.ok) return d;
    if (host.hostApproves) return enforceHostApproval(policy, original, d.value, facts);
    // Always explicit: PicoClaw reads a missing `approved` as a denial with no reason.
    const result: Record<string, unknown> = { approved: d.value.approved };
    if (d.value.reason) result.reason = d.value.reason;
    return { ok: true, result, violations: [] };
  }
  const d = decodeInterceptor(method, raw);
  if (!d.ok) return d;
  const answer = d.value;
  switch (answer.action) {
    case 'abort_turn':
    case 'hard_abort': {
      const result: Record<string, unknown> = { action: answer.action };
      if (answer.reason) result.reason = answer.reason;
      return { ok: true, result, violations: [] };
    }
    case 'deny_tool':
      if (method !== Method.BeforeTool) return neutral();
      return {
        ok: true,
        result: { action: 'deny_tool', ...(answer.reason ? { reason: answer.reason } : {}) },
        violations: [],
      };
    case 'respond':
      if (method !== Method.BeforeTool) return neutral();
      break;
    case 'continue':
    case 'modify':
      break;
    default:
      // PicoClaw logs an unsupported action and drops this hook's output.
      return neutral();
  }
  try {
    switch (method) {
      case Method.BeforeLlm:
        return { ok: true, ...enforceBeforeLlm(policy, original, shown, answer) };
      case Method.AfterLlm:
        return { ok: true, ...enforceAfterLlm(policy, original, shown, answer) };
      case Method.BeforeTool:
        return { ok: true, ...enforceBeforeTool(policy, original, answer, host, facts) };
      case Method.AfterTool:
        return { ok: true, ...enforceAfterTool(policy, original, answer, facts) };
      default:
        return neutral();
    }
  } catch (err) {
    if (err instanceof BadAnswer) return { ok: false, why: err.message };
    throw err;
  }
}

/**
 * The generalised approval-bypass limit: a verdict that skips the host's own approval leaves only
 * for tools the hook is granted to approve, on calls the grant's entry covers (a condition that is
 * false or errs is no grant). A denial always passes (it never widens anything).
 */
function enforceHostApproval(
  policy: EffectivePolicy,
  original: Record<string, unknown>,
  d: { approved: boolean; reason?: string },
  facts: CallFacts,
): PolicyOutcome {
  const result: Record<string, unknown> = { approved: d.approved };
  if (d.reason) result.reason = d.reason;
  if (!d.approved) return { ok: true, result, violations: [] };
  const tool = typeof original.tool === 'string' ? original.tool : '';
  const why = policy.approvable.has(tool)
    ? callRefusal(grantCheck(policy.hook, 'approve', facts), tool, original)
    : '';
  if (why === undefined) return { ok: true, result, violations: [] };
  return {
    ok: true,
    result: continueAnswer(),
    violations: [
      {
        rule: 'approve_tool_not_granted',
        tool,
        detail: `hook "${policy.hook.name}" may not approve tool "${tool}"${why ? ` (${why})` : ''}`,
      },
    ],
  };
}

function neutral(): PolicyOutcome {
  return { ok: true, result: continueAnswer(), violations: [] };
}
