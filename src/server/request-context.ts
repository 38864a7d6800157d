import { randomUuid } from '../lib/uuid.js';
import type { Logger } from './logger.js';

/**
 * What every HTTP request gets, whichever route answers it: an id (echoed in `x-request-id`) and,
 * at info level, one log line. One implementation for the app's routes and the Node adapter's
 * direct call route (node/direct-call-route.ts), so a request reads the same in the log whichever
 * of them took it.
 */

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's `x-request-id` if it is well formed, else a new one. */
export function requestIdOf(given: string | null | undefined): string {
  return given && REQUEST_ID.test(given) ? given : randomUuid();
}

/** When a request began, for its log line; -1 when info lines are not written (no clock is read). */
export function requestStarted(log: Logger): number {
  return log.enabled('info') ? performance.now() : -1;
}

/** The request's log line, if `started` says one is written. The path only: a query string could carry a token. */
export function logRequest(
  log: Logger,
  started: number,
  requestId: string,
  method: string,
  path: string,
  status: number,
): void {
  if (started < 0) return;
  log.info(
    { request_id: requestId, method, path, status, ms: +(performance.now() - started).toFixed(2) },
    'request',
  );
}
