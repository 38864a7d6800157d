import type { CallContextIn, CallObserver, CallOrigin } from '../../server/gateway.js';

/** What a host route knows of its call besides what its request carries. */
export type OriginFields = Omit<CallOrigin, 'traceparent' | 'signal'>;

/**
 * The origin of a call a host route asks the gateway about: the route's fields, the caller's
 * `traceparent`, and the request's abort signal, so a host that goes away ends a call held for a
 * person at once. Both are read from the request only when read: the signal only then (on Node the
 * request makes its AbortSignal on first read, about 2 µs, more than a small call's bookkeeping),
 * the traceparent when the gateway traces calls.
 *
 * A class, with the request in a private field and `signal` a getter on the prototype. It was an
 * object literal with `get signal()`: each call then made a getter closure over the request, and an
 * accessor defined per object gives each object a hidden class of its own. Those hidden classes
 * live in the old generation and pointed at the whole request, so every call's request, body and
 * streams outlived young collections (about 4.5 KB per Claude Code call promoted, against 0.1 KB on
 * the native route) and filled the old generation between full collections.
 *
 * Not spread: a spread copies own fields, and the signal is not one. A route that adds to a call's
 * origin (OpenClaw's `observer`) sets it on this per-call object.
 */
class RequestOrigin implements CallOrigin {
  // Declared, not initialised: Object.assign below sets them from the route's fields.
  declare readonly dialect: string;
  declare observer?: CallObserver;
  readonly #request: CallContextIn;

  constructor(request: CallContextIn, fields: OriginFields) {
    Object.assign(this, fields);
    this.#request = request;
  }

  get signal(): AbortSignal | undefined {
    return this.#request.signal;
  }

  /** Read when the gateway traces calls: a header lookup otherwise spent on every call. */
  get traceparent(): string | undefined {
    return this.#request.traceparent;
  }
}

export function requestOrigin(req: CallContextIn, fields: OriginFields): CallOrigin {
  return new RequestOrigin(req, fields);
}
