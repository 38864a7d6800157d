import { type ForwardedRequest, PeerError } from '../core/peer.js';
import { HookgateError } from '../lib/errors.js';

export type { ForwardedRequest } from '../core/peer.js';
/** Moved to src/lib; re-exported so the bridge's imports stay as they were. */
export { Backoff } from '../lib/backoff.js';

/**
 * The gateway side of the bridge, whatever carries it (WebSocket, HTTP POST or both). An upstream
 * never answers PicoClaw itself: it resolves with the gateway's raw `result` or rejects with an
 * UpstreamError, and the stdio side turns that into a PicoClaw answer.
 */
export interface Upstream {
  /** Begins connecting; never throws. `hello` is PicoClaw's hello params, sent on as a connection check. */
  start(hello?: unknown): void;
  /** `forwarded`: the host's own line for this call, which an upstream may send as it is. */
  call(method: string, params: unknown, timeoutMs: number, forwarded?: ForwardedRequest): Promise<unknown>;
  /** Settles when the message has left (or could not): the event forwarder bounds what is in flight. */
  notify(method: string, params: unknown): Promise<void>;
  /**
   * Runs `fn` (which makes calls) with what it sends held back and written together when it
   * returns: the lines of one stdin chunk leave in one write. Optional; without it, sends go out
   * as they are made.
   */
  batch?(fn: () => void): void;
  close(): Promise<void>;
}

export type UpstreamErrorCode =
  /** No connection and none coming in time (refused, DNS, TLS, backoff). */
  | 'UPSTREAM_UNAVAILABLE'
  /** The gateway refused the token (401/403) or closed the socket because it expired. */
  | 'UPSTREAM_AUTH'
  /** The gateway does not offer a WebSocket here (the upgrade got an ordinary HTTP answer). */
  | 'UPSTREAM_NO_WEBSOCKET'
  /** The connection dropped while the call was pending. */
  | 'UPSTREAM_CLOSED'
  | 'UPSTREAM_TIMEOUT'
  /** A JSON-RPC error response: not an answer PicoClaw can use. */
  | 'UPSTREAM_ERROR_REPLY'
  /** Something that is not a JSON-RPC response (HTTP status, garbage body). */
  | 'UPSTREAM_BAD_REPLY'
  /** The call is bigger than the gateway accepts; sending it would only get the socket closed (1009). */
  | 'UPSTREAM_TOO_LARGE'
  | 'UPSTREAM_STOPPED';

export class UpstreamError extends HookgateError<UpstreamErrorCode> {
  constructor(code: UpstreamErrorCode, message: string) {
    super(code, message);
    this.name = 'UpstreamError';
  }
}

export function asUpstreamError(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  return new UpstreamError('UPSTREAM_UNAVAILABLE', err instanceof Error ? err.message : String(err));
}

/** A JsonRpcPeer failure in the bridge's terms; a dropped connection is UPSTREAM_CLOSED. */
export function fromPeerError(err: unknown, timeoutMs: number): UpstreamError {
  if (!(err instanceof PeerError)) return asUpstreamError(err);
  switch (err.code) {
    case 'PEER_TIMEOUT':
      return new UpstreamError('UPSTREAM_TIMEOUT', `gateway did not answer within ${timeoutMs} ms`);
    case 'PEER_ERROR_REPLY':
      return new UpstreamError(
        'UPSTREAM_ERROR_REPLY',
        `gateway answered with error ${err.rpcError?.code ?? '?'}: ${err.rpcError?.message ?? err.message}`,
      );
    default:
      return new UpstreamError('UPSTREAM_CLOSED', err.message);
  }
}

/** Reads a gateway error body `{"error":{"code","message"}}` into one line for the log. */
export function describeErrorBody(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    const e = parsed?.error;
    if (e && (typeof e.code === 'string' || typeof e.message === 'string')) {
      return `HTTP ${status} ${String(e.code ?? '')}: ${String(e.message ?? '')}`.trim();
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  const text = body.replace(/\s+/g, ' ').trim().slice(0, 300);
  return text ? `HTTP ${status}: ${text}` : `HTTP ${status}`;
}
