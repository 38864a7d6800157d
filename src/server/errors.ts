import { HTTPException } from 'hono/http-exception';
import type { Refusal } from '../limits/types.js';

export type HttpErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'too_many_requests'
  | 'unavailable'
  | 'bad_request'
  | 'not_implemented'
  | 'internal';

/**
 * Transport-level failures leave as an HTTP status with `{"error":{"code","message"}}`; one
 * HTTPException carries the exact response, as in hono.
 */
export function httpError(
  status: number,
  code: HttpErrorCode,
  message: string,
  headers?: Record<string, string>,
): HTTPException {
  const res = new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
  return new HTTPException(status as 400, { res, message });
}

export function unauthorized(message: string, code = 'invalid_token'): HTTPException {
  const description = message.replace(/["\\]/g, "'");
  return httpError(401, 'unauthorized', message, {
    'www-authenticate': `Bearer realm="hookgate", error="${code}", error_description="${description}"`,
  });
}

/** A call refused by a tenant or hook limit: 429 with Retry-After in whole seconds (at least 1). */
export function rateLimited(refusal: Refusal): HTTPException {
  return httpError(
    429,
    'too_many_requests',
    `rate limited (${refusal.limit}); retry after ${refusal.retryAfterSeconds} s`,
    { 'retry-after': String(refusal.retryAfterSeconds) },
  );
}
