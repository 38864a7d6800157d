import { HookgateError } from '../lib/errors.js';

export type ApprovalErrorCode =
  /** No such request for this tenant (another tenant's id reads the same: its existence is not told). */
  | 'NOT_FOUND'
  /** Someone decided first; a decision is single-use. */
  | 'ALREADY_DECIDED'
  /** The deadline passed (or the gateway holding the call went away) before this decision. */
  | 'EXPIRED'
  /** The decider saw other arguments than the request is bound to. */
  | 'DIGEST_MISMATCH'
  /** The shared store could not be reached; nothing was decided. */
  | 'STORE_UNAVAILABLE';

export class ApprovalError extends HookgateError<ApprovalErrorCode> {
  constructor(code: ApprovalErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ApprovalError';
  }
}
