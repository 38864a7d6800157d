/**
 * A person's approval of one tool call, held by the gateway. The binding is what the approval is
 * for: the same tenant, hook, host, tool and arguments (by digest) under the same config, until the
 * deadline. An approval never carries over to another call.
 */
export interface ApprovalBinding {
  tenant: string;
  hook: string;
  /** The agent host the call came from (picoclaw, claude-code, openclaw, …). */
  host: string;
  tool: string;
  /** SHA-256 (lowercase hex) of the canonical JSON of the call's arguments (see argsDigest). */
  argsDigest: string;
  /** The config revision the call was decided under: an approval is for that policy, not a later one. */
  configRevision: string;
  /** The deadline, epoch ms: past it the request ends `expired`. */
  expiresAt: number;
}

/** What an approver is shown beside the binding. The caller decides what may be shown. */
export interface ApprovalDisplay {
  /** The arguments as far as the caller lets them be shown (absent: not shown at all). */
  args?: unknown;
  /** Why a person is asked (the rule's reason). */
  reason?: string;
}

/** One request as stored and listed. */
export interface ApprovalRequest {
  id: string;
  binding: ApprovalBinding;
  display: ApprovalDisplay;
  /** Epoch ms. */
  createdAt: number;
}

export type ApprovalDecision = 'approved' | 'denied' | 'expired';

/** How a request ended; exactly one per request. */
export interface ApprovalOutcome {
  decision: ApprovalDecision;
  reason?: string;
  /** The `sub` of the approver token that decided (absent for `expired`). */
  approver?: string;
  /** Epoch ms. */
  decidedAt: number;
}

/** An approver's decision as the broker takes it. */
export interface DecisionInput {
  approve: boolean;
  reason?: string;
  /** The approver token's `sub`. */
  approver: string;
  /** When given, must equal the binding's: the approver saw these arguments, not others. */
  argsDigest?: string;
}

/** What a tenant's subscribers are told, live. */
export type ApprovalEvent =
  | { type: 'created'; request: ApprovalRequest }
  | { type: 'decided'; tenant: string; id: string; outcome: ApprovalOutcome };
