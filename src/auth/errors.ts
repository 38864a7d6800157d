import { HookgateError } from '../lib/errors.js';

export type AuthErrorCode =
  | 'TOKEN_MISSING'
  | 'TOKEN_MALFORMED'
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED'
  | 'TENANT_MISMATCH'
  | 'HOOK_NOT_ALLOWED';

/** 401 for anything about the token itself, 403 for a good token that does not cover this call. */
export class AuthError extends HookgateError<AuthErrorCode> {
  readonly status: 401 | 403;
  constructor(code: AuthErrorCode, message: string) {
    super(code, message);
    this.name = 'AuthError';
    this.status = code === 'TENANT_MISMATCH' || code === 'HOOK_NOT_ALLOWED' ? 403 : 401;
  }
}
