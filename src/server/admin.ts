import type { MiddlewareHandler } from 'hono';
import { constantTimeEqual } from '../lib/constant-time.js';
import { httpError } from './errors.js';
import type { LiveConfig } from './live-config.js';

/** What a request's credentials are worth on the admin routes. */
export type AdminAccess = 'granted' | 'none' | 'refused' | 'disabled';

const ADMIN_REALM = 'hookgate-admin';

/**
 * Checks `Authorization: Bearer <server.admin_token>`, in constant time. `none`: no credentials
 * at all (401 with a challenge, as for any route that takes a token, even while disabled);
 * `refused`: credentials that are not the admin token; `disabled`: credentials, but no admin token
 * is configured, so nothing can be granted. The token is read from the live config, so a reload can
 * rotate it.
 */
export function adminAccess(live: LiveConfig, headers: Headers): AdminAccess {
  const expected = live.current.config.server.adminToken;
  const auth = headers.get('authorization');
  if (!auth) return 'none';
  if (expected === undefined) return 'disabled';
  const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(auth);
  return m && constantTimeEqual(m[1], expected) ? 'granted' : 'refused';
}

/** 401 with WWW-Authenticate for missing or wrong credentials, 403 for any while admin routes are disabled. */
export function adminRefusal(access: Exclude<AdminAccess, 'granted'>) {
  if (access === 'disabled') {
    return httpError(403, 'forbidden', 'admin routes are disabled: no server.admin_token is configured');
  }
  const error = access === 'none' ? 'invalid_request' : 'invalid_token';
  const message = access === 'none' ? 'the admin token is required' : 'not the admin token';
  return httpError(401, 'unauthorized', message, {
    'www-authenticate': `Bearer realm="${ADMIN_REALM}", error="${error}"`,
  });
}

export function requireAdmin(live: LiveConfig): MiddlewareHandler {
  return async function admin(c, next) {
    const access = adminAccess(live, c.req.raw.headers);
    if (access !== 'granted') throw adminRefusal(access);
    await next();
  };
}
