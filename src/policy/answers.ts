import type { HookRuntime } from '../config/runtime.js';
import { Method } from '../protocol/methods.js';

/** The neutral answer: the host proceeds exactly as it would without this hook. */
export function continueAnswer(): Record<string, unknown> {
  return { action: 'continue' };
}

export function denyApproval(reason: string): Record<string, unknown> {
  return { approved: false, reason };
}

/**
 * Marks an answer that asks for a person's approval (a gateway rule's `ask`). A symbol, so the
 * answer a PicoClaw host is sent stays exactly its protocol (`continue`: on to its approval path),
 * while a dialect whose host has an ask of its own (Claude Code's `permissionDecision: "ask"`)
 * reads the reason here and uses it.
 */
export const ASK_PERSON: unique symbol = Symbol('hookgate.askPerson');

/** No verdict that skips approval: the host goes on to its own approval, told why. */
export function askAnswer(reason: string): Record<string, unknown> {
  const answer: Record<string | symbol, unknown> = { action: 'continue' };
  answer[ASK_PERSON] = reason;
  return answer as Record<string, unknown>;
}

/** The reason an answer asks for a person's approval, or undefined when it does not. */
export function askedPerson(answer: Record<string, unknown>): string | undefined {
  const reason = (answer as Record<string | symbol, unknown>)[ASK_PERSON];
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * What a method answers when its hook cannot (down, slow, garbage). Approvals fail closed (on a host
 * with its own approval, an open hook gives no verdict instead);
 * interceptors follow the hook's `on_failure`: open = continue, closed = deny the tool (before_tool)
 * or abort the turn (the other interceptors, which have no deny).
 */
export function failureAnswer(
  hook: Pick<HookRuntime, 'name' | 'onFailure'>,
  method: string,
  why: string,
  hostApproves = false,
) {
  const reason = `hookgate: hook "${hook.name}" failed: ${why}`;
  // A host with an approval of its own (hostApproves) still asks or denies by itself when an open
  // hook fails: no verdict is the safe answer there; closed denies.
  if (method === Method.ApproveTool) {
    return hostApproves && hook.onFailure === 'open' ? continueAnswer() : denyApproval(reason);
  }
  if (hook.onFailure === 'open') return continueAnswer();
  if (method === Method.BeforeTool) return { action: 'deny_tool', reason };
  return { action: 'abort_turn', reason };
}
