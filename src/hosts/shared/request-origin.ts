import type { HonoRequest } from 'hono';
import type { CallOrigin } from '../../server/gateway.js';

/** What a host route knows of its call besides what its request carries. */
export type OriginFields = Omit<CallOrigin, 'traceparent' | 'signal'>;

/**
 * The origin of a call a host route asks the gateway about: the route's fields, the caller's
 * `traceparent`, and the request's abort signal, so a host that goes away ends a call held for a
 * person at once. The signal is read only then: on Node the request makes its AbortSignal on first
 * read (about 2 µs), more than a small call's bookkeeping. Spreading the result reads it.
 */
export function requestOrigin(req: HonoRequest, fields: OriginFields): CallOrigin {
  return {
    ...fields,
    traceparent: req.header('traceparent'),
    get signal() {
      return req.raw.signal;
    },
  };
}
