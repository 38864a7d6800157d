import type { Principal } from '../auth/principal.js';

/**
 * An approver token is a tenant's JWT, signed by one of the tenant's own keys, that carries
 * `"hookgate_role": "approver"` and a `sub` (who decides is recorded). A hook token does not carry
 * the claim and is not an approver; `hookgate token --approver` mints approver tokens with an empty
 * `hooks` list, so they call no hook.
 */
export const APPROVER_ROLE_CLAIM = 'hookgate_role';
export const APPROVER_ROLE = 'approver';

export function isApprover(principal: Principal): boolean {
  return principal.claims?.[APPROVER_ROLE_CLAIM] === APPROVER_ROLE;
}
