import { Method } from '../protocol/methods.js';
import type { OnFailure } from './options.js';

/**
 * What the bridge answers in PicoClaw's place when the gateway cannot (down, slow, refused the token,
 * answered with a JSON-RPC error or with something PicoClaw could not decode).
 *
 * Approvals always fail closed, with a reason, whatever --on-failure says: PicoClaw itself denies on a
 * failed approver, and an approval must never leave the bridge without an explicit `approved`.
 */
export function failureAnswer(method: string, mode: OnFailure, reason: string): unknown {
  if (method === Method.ApproveTool) return { approved: false, reason: `hookgate: ${reason}` };
  if (mode === 'open') return { action: 'continue' };
  if (method === Method.BeforeTool) return { action: 'deny_tool', reason: `hookgate: ${reason}` };
  return { action: 'abort_turn', reason: `hookgate: ${reason}` };
}

/**
 * The answer that changes nothing: the host proceeds as it would without this hook. Used where the
 * gateway did answer but the bridge must not pass the answer on (too big for PicoClaw's reader, a
 * respond for a tool outside --allow-respond). An approval without a usable answer is still a denial.
 */
export function neutralAnswer(method: string, reason: string): unknown {
  if (method === Method.ApproveTool) return { approved: false, reason: `hookgate: ${reason}` };
  return { action: 'continue' };
}
