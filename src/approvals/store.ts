import type { ApprovalOutcome, ApprovalRequest } from './types.js';

/** A stored request and, once there is one, its outcome. */
export interface StoredApproval {
  request: ApprovalRequest;
  outcome?: ApprovalOutcome;
}

/**
 * What settling a request did. `written`: this outcome (or `expired` in its place, when the deadline
 * had passed or the holder is gone) is now the request's; `already`: another was there first;
 * `missing`: no such request for this tenant.
 */
export type SettleResult =
  | { kind: 'written'; outcome: ApprovalOutcome }
  | { kind: 'already'; outcome: ApprovalOutcome }
  | { kind: 'missing' };

/** What every replica sharing a store hears. */
export type StoreEvent =
  | { type: 'created'; request: ApprovalRequest }
  | { type: 'settled'; tenant: string; id: string; outcome: ApprovalOutcome };

/**
 * Where requests and outcomes live, so replicas share them: a call parked on one gateway can be
 * decided through another. `settle` is the one write that decides, and it is atomic: of any number
 * of racing settles (approvers, the deadline, a sweep) exactly one is `written`.
 */
export interface ApprovalStore {
  /** Records a pending request, held by this store's replica until it is settled. */
  create(request: ApprovalRequest): Promise<void>;
  get(tenant: string, id: string): Promise<StoredApproval | undefined>;
  /**
   * Writes `outcome` if the request has none. A non-`expired` outcome at or past the deadline
   * (`now`), or for a request whose holder is gone, writes `expired` instead.
   */
  settle(tenant: string, id: string, outcome: ApprovalOutcome, now: number): Promise<SettleResult>;
  /** The tenant's requests without an outcome whose deadline is after `now`, oldest first. */
  pending(tenant: string, now: number): Promise<ApprovalRequest[]>;
  /** Every replica's creations and settlements (this one's included); returns an unsubscribe. */
  subscribe(listener: (event: StoreEvent) => void): () => void;
  /**
   * For stores that hear a tenant's events only on request, on a connection of the subscriber's
   * own (a Durable Object per tenant, on Workers, where a request's stream can be written only by
   * that request): this tenant's events, from every replica, go to `listener` only, until the
   * returned release. `ready` is called once that connection hears events (a list made after it
   * misses nothing). Absent: `subscribe` hears every event of every tenant.
   */
  watch?(tenant: string, listener: (event: StoreEvent) => void, ready?: () => void): () => void;
  close(): Promise<void>;
}

/** The outcome written in place of a decision that came too late. */
export function lateOutcome(now: number, reason = 'the deadline passed before a decision'): ApprovalOutcome {
  return { decision: 'expired', reason, decidedAt: now };
}
