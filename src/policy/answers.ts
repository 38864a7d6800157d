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
 * What a method answers when its hook cannot (down, slow, garbage). Approvals always fail closed;
 * interceptors follow the hook's `on_failure`: open = continue, closed = deny the tool (before_tool)
 * or abort the turn (the other interceptors, which have no deny).
 */
export function failureAnswer(hook: Pick<HookRuntime, 'name' | 'onFailure'>, method: string, why: string) {
  const reason = `hookgate: hook "${hook.name}" failed: ${why}`;
  if (method === Method.ApproveTool) return denyApproval(reason);
  if (hook.onFailure === 'open') return continueAnswer();
  if (method === Method.BeforeTool) return { action: 'deny_tool', reason };
  return { action: 'abort_turn', reason };
}
