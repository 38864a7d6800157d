import { HookgateError } from '../lib/errors.js';
import { continueAnswer } from './answers.js';
import type { DecodedInterceptor } from './decode.js';
import { fillBack, isPlainObject, jsonEqual } from './equal.js';
import { type CallFacts, callRefusal, grantCheck, rewriteRefusal } from './grant-check.js';
import type { EffectivePolicy, Enforced, Violation } from './types.js';

/** A hook answer the checks cannot use; the gateway answers by the hook's failure mode instead. */
export class BadAnswer extends HookgateError<'BAD_ANSWER'> {
  constructor(message: string) {
    super('BAD_ANSWER', message);
    this.name = 'BadAnswer';
  }
}

function toolOf(params: Record<string, unknown>): string {
  return typeof params.tool === 'string' ? params.tool : '';
}

/** A refused before_tool answer: stripped to continue, or `deny_tool` when the hook says `on_violation: deny`. */
function refuse(policy: EffectivePolicy, violations: Violation[]): Enforced {
  if (policy.hook.onViolation === 'deny') {
    const v = violations[0];
    return {
      result: { action: 'deny_tool', reason: `hookgate: ${v.detail} (${v.rule})` },
      violations,
    };
  }
  return { result: continueAnswer(), violations };
}

/**
 * before_tool. `respond` skips the host's approval, so it passes only for the hook's own tools
 * (the approval-bypass limit). A rename or new arguments pass only for tools the hook owns or was
 * granted in `rewrite_tools`, and a rename must also land on such a tool. An entry with a
 * condition grants only the calls it holds for (a rewrite: on the call and on what it becomes).
 */
export function enforceBeforeTool(
  policy: EffectivePolicy,
  original: Record<string, unknown>,
  answer: DecodedInterceptor,
  host: { mergesArguments?: boolean },
  facts: CallFacts,
): Enforced {
  const tool = toolOf(original);
  if (answer.action === 'respond') {
    // PicoClaw takes the top-level result first, then call.hook_result; renames are ignored on respond.
    const result =
      answer.result ?? (isPlainObject(answer.call?.hook_result) ? answer.call.hook_result : undefined);
    if (!result) return { result: continueAnswer(), violations: [] };
    // '': the tool is not among the effective tools; text: an entry's condition refused the call.
    const why = policy.tools.has(tool)
      ? callRefusal(grantCheck(policy.hook, 'respond', facts), tool, original)
      : '';
    if (why !== undefined) {
      return refuse(policy, [
        {
          rule: 'respond_tool_not_granted',
          tool,
          detail: `hook "${policy.hook.name}" may not answer tool "${tool}"${why ? ` (${why})` : ''}`,
        },
      ]);
    }
    const out: Record<string, unknown> = { action: 'respond', result };
    if (answer.reason) out.reason = answer.reason;
    return { result: out, violations: [] };
  }

  const call = answer.call;
  if (!call) return { result: continueAnswer(), violations: [] };
  const violations: Violation[] = [];
  const newTool = typeof call.tool === 'string' && call.tool !== '' ? call.tool : tool;
  const newArgs =
    call.arguments === undefined || call.arguments === null ? original.arguments : call.arguments;
  if (newArgs !== undefined && !isPlainObject(newArgs))
    throw new BadAnswer('call.arguments is not an object');
  const renamed = newTool !== tool;
  const argsChanged = !jsonEqual(newArgs ?? {}, original.arguments ?? {});
  if (!renamed && !argsChanged) return { result: continueAnswer(), violations };

  // Why a rewrite of `tool` into `to` with newArgs is not granted: '' for a name not granted, a
  // condition's refusal, or undefined when granted. Asked at most once per target tool.
  const whys = new Map<string, string | undefined>();
  const rewriteWhy = (to: string): string | undefined => {
    if (!(policy.rewritable.has(tool) && policy.rewritable.has(to))) return '';
    if (!whys.has(to))
      whys.set(to, rewriteRefusal(grantCheck(policy.hook, 'rewrite', facts), original, tool, to, newArgs));
    return whys.get(to);
  };
  const because = (why: string) => (why ? ` (${why})` : '');
  let finalTool = tool;
  if (renamed) {
    const why = rewriteWhy(newTool);
    if (why === undefined) finalTool = newTool;
    else
      violations.push({
        rule: 'rename_not_granted',
        tool,
        detail: `hook may not rename tool "${tool}" to "${newTool}"${because(why)}`,
      });
  }
  let finalArgs = original.arguments;
  if (argsChanged) {
    const dropped = host.mergesArguments ? droppedKeys(original.arguments, newArgs) : [];
    const why = rewriteWhy(finalTool);
    if (why !== undefined)
      violations.push({
        rule: 'rewrite_arguments_not_granted',
        tool,
        detail: `hook may not rewrite arguments of tool "${tool}"${because(why)}`,
      });
    else if (dropped.length > 0)
      violations.push({
        rule: 'rewrite_removes_argument',
        tool,
        detail: `the host merges rewrites and cannot remove argument(s) ${dropped.map((k) => JSON.stringify(k)).join(', ')} of tool "${tool}"`,
      });
    else finalArgs = newArgs;
  }
  if (violations.length > 0 && policy.hook.onViolation === 'deny') return refuse(policy, violations);
  if (finalTool === tool && finalArgs === original.arguments) return { result: continueAnswer(), violations };

  const outCall: Record<string, unknown> = { ...original, tool: finalTool };
  if (finalArgs !== undefined) outCall.arguments = finalArgs;
  const out: Record<string, unknown> = { action: answer.action, call: outCall };
  if (answer.reason) out.reason = answer.reason;
  return { result: out, violations };
}

/** Top-level keys of the original arguments that a rewrite leaves out. */
function droppedKeys(original: unknown, rewritten: unknown): string[] {
  if (!isPlainObject(original) || !isPlainObject(rewritten)) return [];
  return Object.keys(original).filter((k) => !Object.hasOwn(rewritten, k));
}

/**
 * after_tool. Replacing a tool's result needs `rewrite_results`, except for the hook's own tools.
 * The new result sits at `result.result` (the envelope PicoClaw decodes); `result.tool` renames
 * the tool in the host's logs and counts as a rewrite too.
 */
export function enforceAfterTool(
  policy: EffectivePolicy,
  original: Record<string, unknown>,
  answer: DecodedInterceptor,
  facts: CallFacts,
): Enforced {
  const envelope = answer.result;
  if (!envelope) return { result: continueAnswer(), violations: [] };
  const tool = toolOf(original);
  const inner = envelope.result;
  const origInner = isPlainObject(original.result) ? original.result : {};
  const innerChanged = isPlainObject(inner) && !jsonEqual(inner, origInner);
  const newTool = typeof envelope.tool === 'string' && envelope.tool !== '' ? envelope.tool : tool;
  const renamed = newTool !== tool;
  if (!innerChanged && !renamed) return { result: continueAnswer(), violations: [] };
  // Without rewrite_results, only an own tool's result, on a call its `tools` entry grants.
  const why = policy.hook.grants.rewriteResults
    ? undefined
    : policy.tools.has(tool)
      ? callRefusal(grantCheck(policy.hook, 'respond', facts), tool, original)
      : '';
  if (why !== undefined) {
    return {
      result: continueAnswer(),
      violations: [
        {
          rule: 'rewrite_results_not_granted',
          tool,
          detail: `hook may not rewrite the result of tool "${tool}"${why ? ` (${why})` : ''}`,
        },
      ],
    };
  }
  const outEnvelope: Record<string, unknown> = { ...original, tool: newTool };
  if (innerChanged) outEnvelope.result = fillBack(origInner, origInner, inner as Record<string, unknown>);
  const out: Record<string, unknown> = { action: answer.action, result: outEnvelope };
  if (answer.reason) out.reason = answer.reason;
  return { result: out, violations: [] };
}
