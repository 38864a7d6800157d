/**
 * The gateway's WebSocket close codes, each with one meaning, and how a client must react to it.
 * Shared by the server (which sends them) and the bridge (which reads them), so the two can never
 * disagree about what a code means. Runtime-neutral.
 *
 * 1008 (Policy Violation) is kept for authentication only: the token a socket was opened with is
 * no longer accepted (a reload removed its key). An expired token has its own application code,
 * 4001, so a client can tell "get a new token" apart from every other reason a socket ends. A
 * slow consumer is 1013 (Try Again Later): reconnect, never re-authenticate.
 */
export const CloseCode = {
  /** The peer ended the connection normally. */
  Normal: 1000,
  /** The gateway is shutting down or restarting. */
  GoingAway: 1001,
  /** The token was valid when the socket opened and is no longer accepted (its key was removed). */
  TokenRevoked: 1008,
  /** A message was bigger than the gateway accepts (server.max_body_bytes). */
  TooBig: 1009,
  /** The gateway failed in a way the client cannot fix. */
  InternalError: 1011,
  /** The client did not read its answers fast enough (slow consumer). */
  TryAgainLater: 1013,
  /** The token's `exp` has passed. */
  TokenExpired: 4001,
  /** The hook, or its whole tenant, was removed from the gateway's config (reload). */
  HookRemoved: 4004,
} as const;

export type CloseCodeValue = (typeof CloseCode)[keyof typeof CloseCode];

/**
 * What a client does after a close:
 * - `reconnect`: open a new connection with the same token (with backoff);
 * - `reauthenticate`: the token will be refused; get a new one before connecting again;
 * - `give_up`: the gateway no longer serves this endpoint; reconnecting will not help until its
 *   operator changes the config.
 */
export type CloseReaction = 'reconnect' | 'reauthenticate' | 'give_up';

export function closeReaction(code: number): CloseReaction {
  switch (code) {
    case CloseCode.TokenExpired:
    case CloseCode.TokenRevoked:
      return 'reauthenticate';
    case CloseCode.HookRemoved:
      return 'give_up';
    default:
      // 1000, 1001, 1006 (connection lost), 1009, 1011, 1013 and codes this client does not know:
      // the endpoint and the token may still be good.
      return 'reconnect';
  }
}

/** A close code in words, for logs and the failure reasons a client reports. */
export function describeCloseCode(code: number): string {
  switch (code) {
    case CloseCode.Normal:
      return 'closed by the gateway';
    case CloseCode.GoingAway:
      return 'gateway is shutting down';
    case 1006:
      return 'connection lost';
    case CloseCode.TokenRevoked:
      return 'token no longer accepted';
    case CloseCode.TooBig:
      return 'message too big for the gateway';
    case CloseCode.InternalError:
      return 'gateway error';
    case CloseCode.TryAgainLater:
      return 'gateway asked to reconnect later (slow consumer)';
    case CloseCode.TokenExpired:
      return 'token expired';
    case CloseCode.HookRemoved:
      return 'hook removed from the gateway';
    default:
      return 'connection closed';
  }
}
