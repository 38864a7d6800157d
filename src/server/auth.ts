import type { Context, MiddlewareHandler } from 'hono';
import { AuthError } from '../auth/errors.js';
import { mayCallHook, type Principal } from '../auth/principal.js';
import type { TenantVerifier } from '../auth/verifier.js';
import type { HookRuntime } from '../config/runtime.js';
import { httpError, unauthorized } from './errors.js';
import type { ConfigSnapshot, LiveConfig } from './live-config.js';
import type { Metrics } from './metrics.js';

export const WS_PROTOCOL = 'hookgate.v1';
const BEARER_PROTOCOL_PREFIX = 'bearer.';

export type AuthVariables = {
  principal: Principal;
  hook: HookRuntime;
  requestId: string;
  /** The config the token was verified under (a WebSocket re-checks itself when it is replaced). */
  snapshot: ConfigSnapshot;
};

/**
 * The token comes from `Authorization: Bearer`, or for WebSocket clients that cannot set headers,
 * from a `Sec-WebSocket-Protocol` entry `bearer.<token>`. Never from the URL.
 */
export function extractToken(headers: Headers): string | undefined {
  const auth = headers.get('authorization');
  if (auth) return bearerToken(auth);
  const offered = headers.get('sec-websocket-protocol');
  if (offered && headers.get('upgrade')?.toLowerCase() === 'websocket') {
    for (const p of offered.split(',')) {
      const v = p.trim();
      if (v.startsWith(BEARER_PROTOCOL_PREFIX)) return v.slice(BEARER_PROTOCOL_PREFIX.length);
    }
  }
  return undefined;
}

const BEARER = 'bearer';
const SPACE = 0x20;

/**
 * The token of an `Authorization` value, as `/^Bearer[ ]+([^ ]+)[ ]*$/i` reads it: the scheme in any
 * ASCII case, one or more spaces, the token (no spaces), nothing after it but spaces. Read by hand
 * (the scheme) and indexOf (the token) rather than by that expression, which runs on every call:
 * 53 against 163 ns for a 300-character token.
 */
export function bearerToken(auth: string): string | undefined {
  const n = auth.length;
  if (n < BEARER.length + 2) return undefined;
  // `| 0x20` folds exactly the ASCII capital onto its small letter and nothing else onto it.
  for (let i = 0; i < BEARER.length; i++) {
    if ((auth.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return undefined;
  }
  let start = BEARER.length;
  if (auth.charCodeAt(start) !== SPACE) return undefined;
  while (start < n && auth.charCodeAt(start) === SPACE) start++;
  if (start === n) return undefined;
  // indexOf rather than a loop over the token: it runs natively.
  const end = auth.indexOf(' ', start);
  if (end === -1) return auth.slice(start);
  for (let i = end; i < n; i++) if (auth.charCodeAt(i) !== SPACE) return undefined;
  return auth.slice(start, end);
}

/** One refused caller, by tenant (`?` for one that does not exist) and reason. */
function countFailure(
  metrics: Metrics,
  verifiers: ReadonlyMap<string, TenantVerifier>,
  tenant: string,
  reason: string,
): void {
  metrics.inc('hookgate_auth_failures_total', { tenant: verifiers.has(tenant) ? tenant : '?', reason });
}

/**
 * Authenticates and authorises a call on /v1/tenants/{tenant}/hooks/{hook}: 401 for a missing or
 * bad token, 403 for a good token that names another tenant or not this hook, 404 for a hook the
 * tenant does not have.
 */
export function requireHookAccess(
  live: LiveConfig,
  metrics: Metrics,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const authorise = hookAuthoriser(live, metrics);
  return async function hookAccess(c, next) {
    const pending = authorise(c);
    if (pending !== undefined) await pending;
    await next();
  };
}

/**
 * What requireHookAccess checks, as a function a route can call itself: it sets `principal`,
 * `hook` and `snapshot` on the context, or throws the refusal. It returns nothing when the token was
 * found in the verifier's cache (the common case: no promise, no await), else a promise that
 * settles once the token is verified. The call routes (the native one, each host's) call it
 * directly and run alone (see server/alone-router.ts), which spares every call hono's composition
 * of middleware (their async frames, their `next` and the dispatch between them).
 */
export function hookAuthoriser(
  live: LiveConfig,
  metrics: Metrics,
): (c: Context<{ Variables: AuthVariables }>) => Promise<void> | undefined {
  return function authorise(c) {
    // One snapshot for the whole check: the keys that verify the token and the hook it reaches
    // come from the same config, even when a reload lands while the token is being verified.
    const snapshot = live.current;
    const { verifiers } = snapshot;
    const tenant = c.req.param('tenant') ?? '';
    const hookName = c.req.param('hook') ?? '';
    const token = extractToken(c.req.raw.headers);
    if (!token) {
      countFailure(metrics, verifiers, tenant, 'missing');
      const inQuery = /[?&](access_token|token|jwt)=/i.test(c.req.url);
      throw unauthorized(
        inQuery
          ? 'tokens in the URL are not accepted; use Authorization: Bearer'
          : 'a bearer token is required',
        inQuery ? 'invalid_request' : 'invalid_token',
      );
    }
    const verifier = verifiers.get(tenant);
    if (!verifier) {
      // Same answer as a bad token: do not reveal which tenants exist.
      countFailure(metrics, verifiers, tenant, 'unknown_tenant');
      throw unauthorized('token did not verify');
    }
    let found: Principal | Promise<Principal>;
    try {
      // A repeated token is answered from the verifier's cache without a promise.
      found = verifier.authenticate(token);
    } catch (err) {
      throw refusal(metrics, verifiers, tenant, err);
    }
    if (!(found instanceof Promise)) {
      admit(c, metrics, snapshot, tenant, hookName, found);
      return undefined;
    }
    return found.then(
      (principal) => admit(c, metrics, snapshot, tenant, hookName, principal),
      (err: unknown) => {
        throw refusal(metrics, verifiers, tenant, err);
      },
    );
  };
}

/** A verification that failed, as the answer to send: 403 or 401 by the AuthError's status. */
function refusal(
  metrics: Metrics,
  verifiers: ReadonlyMap<string, TenantVerifier>,
  tenant: string,
  err: unknown,
): unknown {
  if (!(err instanceof AuthError)) return err;
  countFailure(metrics, verifiers, tenant, err.code.toLowerCase());
  if (err.status === 403) return httpError(403, 'forbidden', err.message);
  return unauthorized(err.message);
}

/** Why a verified principal may not call a hook (see `admission`). */
export type AdmissionRefusal = 'tenant_mismatch' | 'hook_not_allowed' | 'no_such_hook';

/**
 * Whether a verified principal may call a tenant's hook: the hook when it may, else why not. Pure
 * (nothing counted, nothing thrown), so the Node adapter's direct call route can ask it first and
 * leave every refusal to this module's answer (`admit`).
 */
export function admission(
  snapshot: ConfigSnapshot,
  tenant: string,
  hookName: string,
  principal: Principal,
): HookRuntime | AdmissionRefusal {
  if (principal.tenant !== tenant) return 'tenant_mismatch';
  if (!mayCallHook(principal, hookName)) return 'hook_not_allowed';
  return snapshot.config.tenants.get(tenant)?.hooks.get(hookName) ?? 'no_such_hook';
}

/** A verified principal: allowed this tenant and hook, or refused; on the context when allowed. */
function admit(
  c: Context<{ Variables: AuthVariables }>,
  metrics: Metrics,
  snapshot: ConfigSnapshot,
  tenant: string,
  hookName: string,
  principal: Principal,
): void {
  const hook = admission(snapshot, tenant, hookName, principal);
  if (typeof hook === 'string') {
    if (hook === 'no_such_hook') throw httpError(404, 'not_found', `tenant has no hook "${hookName}"`);
    countFailure(metrics, snapshot.verifiers, tenant, hook);
    throw hook === 'tenant_mismatch'
      ? httpError(403, 'forbidden', 'token is not valid for this tenant')
      : httpError(403, 'forbidden', `token does not allow hook "${hookName}"`);
  }
  c.set('principal', principal);
  c.set('hook', hook);
  c.set('snapshot', snapshot);
}
