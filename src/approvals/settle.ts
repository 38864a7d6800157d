import { lateOutcome, type SettleResult, type StoredApproval } from './store.js';
import type { ApprovalOutcome, ApprovalRequest } from './types.js';

/** Why a request ends when the gateway that held its call is gone (it cannot answer anyone). */
export const HOLDER_GONE = 'the gateway holding the call stopped';

/**
 * The one rule of settling, for every store that can run it (memory, the Workers Durable Object;
 * Redis runs the same rule inside its Lua script, atomically): a request settles once; a
 * non-`expired` outcome at or past the deadline, or for a request whose holder is gone, is written
 * as `expired` instead. Pure: the caller reads the entry and writes the result in one atomic step.
 */
export function settleEntry(
  entry: StoredApproval | undefined,
  outcome: ApprovalOutcome,
  now: number,
  holderGone = false,
): SettleResult {
  if (!entry) return { kind: 'missing' };
  if (entry.outcome) return { kind: 'already', outcome: entry.outcome };
  if (outcome.decision === 'expired') return { kind: 'written', outcome };
  if (now >= entry.request.binding.expiresAt) return { kind: 'written', outcome: lateOutcome(now) };
  if (holderGone) return { kind: 'written', outcome: lateOutcome(now, HOLDER_GONE) };
  return { kind: 'written', outcome };
}

/** Whether a request is still waiting for a person at `now` (listed by `pending`). */
export function isPending(entry: StoredApproval, now: number): boolean {
  return !entry.outcome && entry.request.binding.expiresAt > now;
}

/** `pending`'s order: oldest first. */
export function oldestFirst(requests: ApprovalRequest[]): ApprovalRequest[] {
  return requests.sort((a, b) => a.createdAt - b.createdAt);
}
