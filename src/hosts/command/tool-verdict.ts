import { askedPerson } from '../../policy/answers.js';
import { fillBack, isPlainObject, jsonEqual } from '../../policy/equal.js';

/**
 * A policy-checked before_tool answer, reduced to what a command-hook host can carry: nothing, a
 * block with the reason the model reads, or the complete new input. None of these hosts can stop a
 * turn, answer a call without running the tool, or rename a call: each becomes a block, since going
 * on would do something the hook did not ask for.
 */
export type ToolVerdict =
  | { kind: 'none' }
  /** A gateway rule's ask: the host's own ask where it has one, else no verdict. */
  | { kind: 'ask'; reason: string }
  | { kind: 'block'; reason: string }
  | { kind: 'rewrite'; input: Record<string, unknown>; reason?: string };

export function toolVerdict(
  label: string,
  tool: unknown,
  toolInput: Record<string, unknown> | undefined,
  answer: Record<string, unknown>,
): ToolVerdict {
  const action = typeof answer.action === 'string' ? answer.action : 'continue';
  const reason = typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : undefined;
  if (action === 'deny_tool') return { kind: 'block', reason: reason ?? 'denied by hook' };
  const ask = askedPerson(answer);
  if (ask !== undefined) return { kind: 'ask', reason: ask };
  if (action === 'abort_turn' || action === 'hard_abort')
    return { kind: 'block', reason: reason ?? 'turn stopped by hook' };
  if (action === 'respond') {
    // The block's reason is what the model reads in place of the tool's result.
    const result = isPlainObject(answer.result) ? answer.result : undefined;
    return { kind: 'block', reason: typeof result?.for_llm === 'string' ? result.for_llm : (reason ?? '') };
  }
  const call = isPlainObject(answer.call) ? answer.call : undefined;
  if (!call) return { kind: 'none' };
  if (call.tool !== tool)
    return {
      kind: 'block',
      reason: `hookgate: ${label} cannot redirect "${String(tool)}" to "${String(call.tool)}"`,
    };
  const original = toolInput ?? {};
  const changed = isPlainObject(call.arguments) ? call.arguments : original;
  // The complete input the host will run: these hosts replace the arguments with what they get.
  const input = fillBack(original, original, changed);
  if (jsonEqual(input, original)) return { kind: 'none' };
  return reason === undefined ? { kind: 'rewrite', input } : { kind: 'rewrite', input, reason };
}

/** approve_tool's policy-checked answer: true only for `approved: true` (within approve_tools). */
export function approvedBy(approval: Record<string, unknown> | undefined): boolean | undefined {
  if (!approval || !Object.hasOwn(approval, 'approved')) return undefined;
  return approval.approved === true;
}

/** The hook's reason on an approve_tool answer, or undefined. */
export function approvalReason(approval: Record<string, unknown> | undefined): string | undefined {
  return typeof approval?.reason === 'string' && approval.reason !== '' ? approval.reason : undefined;
}
