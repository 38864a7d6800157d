import { HTTPException } from 'hono/http-exception';
import type { Refusal } from '../limits/types.js';
import type { Logger } from './logger.js';

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

/**
 * The answer to a request that failed: an HTTPException's own response (with the request's id), or
 * a 500 that says nothing of the cause, which goes to the log instead.
 */
export function errorResponse(err: unknown, requestId: string, log: Logger): Response {
  if (err instanceof HTTPException) {
    const res = err.getResponse();
    res.headers.set('x-request-id', requestId);
    return res;
  }
  log.error(
    { request_id: requestId, err: err instanceof Error ? err.message : String(err) },
    'unhandled error',
  );
  return jsonResponse({ error: { code: 'internal', message: 'internal error' } }, 500);
}

/** A JSON body with its status, as hono's `c.json` answers it. */
export function jsonResponse(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}
