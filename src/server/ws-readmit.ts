import { AuthError } from '../auth/errors.js';
import { mayCallHook, type Principal } from '../auth/principal.js';
import type { HookRuntime } from '../config/runtime.js';
import { CloseCode } from '../lib/close-codes.js';
import type { ConfigSnapshot } from './live-config.js';

/** What becomes of an open WebSocket under a config it was not admitted under. */
export type Readmission =
  /** It goes on, calling `hook` (the current config's object) as `principal` when that was re-verified. */
  | { kind: 'keep'; hook: HookRuntime; principal?: Principal; unchecked?: string }
  /** Its hook or tenant is gone: calls in flight are answered, then it closes with 4004. */
  | { kind: 'gone'; reason: string }
  /** Its token is not accepted under the current keys (1008) or has expired (4001): it closes at once. */
  | { kind: 'refused'; code: number; reason: string };

const REVOKED: Readmission = {
  kind: 'refused',
  code: CloseCode.TokenRevoked,
  reason: 'token no longer accepted',
};
const EXPIRED: Readmission = { kind: 'refused', code: CloseCode.TokenExpired, reason: 'token expired' };

/** What a socket was admitted with: the token, and the config snapshot it was verified under. */
export interface Admission {
  hook: HookRuntime;
  token?: string;
  snapshot: ConfigSnapshot;
}

/**
 * Decides whether a socket admitted under `admitted.snapshot` may go on under `now`. Runtime-neutral:
 * a Node reload swaps snapshots, and a socket whose upgrade was verified against the old keys can
 * open after the swap, so the decision is made per socket against whatever is current, not only
 * for the sockets open when the reload ran.
 *
 * The token is verified again only when the tenant's verifier was replaced (its keys, audience or
 * issuer changed): a kept verifier accepts exactly what it accepted before. A verifier that fails
 * other than by refusing the token keeps the socket (`unchecked` says why, for the log): a reload
 * must not cut every connection of a tenant because of a fault of the gateway's own.
 */
export async function readmit(admitted: Admission, now: ConfigSnapshot): Promise<Readmission> {
  const { hook, token, snapshot } = admitted;
  const tenant = now.config.tenants.get(hook.tenant);
  const current = tenant?.hooks.get(hook.name);
  if (!current) {
    return {
      kind: 'gone',
      reason: tenant ? 'hook removed from the gateway config' : 'tenant removed from the gateway config',
    };
  }
  const verifier = now.verifiers.get(hook.tenant);
  if (verifier && verifier === snapshot.verifiers.get(hook.tenant)) return { kind: 'keep', hook: current };
  if (!token || !verifier) return REVOKED;
  try {
    const principal = await verifier.verify(token);
    if (principal.tenant !== hook.tenant || !mayCallHook(principal, hook.name)) return REVOKED;
    return { kind: 'keep', hook: current, principal };
  } catch (err) {
    if (err instanceof AuthError) return err.code === 'TOKEN_EXPIRED' ? EXPIRED : REVOKED;
    return { kind: 'keep', hook: current, unchecked: String(err) };
  }
}
