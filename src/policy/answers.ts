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
