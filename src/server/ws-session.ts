import type { Principal } from '../auth/principal.js';
import type { HookRuntime } from '../config/runtime.js';
import { rememberParamsText } from '../core/params-text.js';
import { CloseCode } from '../lib/close-codes.js';
import { ErrorCode, failure, isRequest, type JsonRpcId, parseMessage } from '../protocol/jsonrpc.js';
import { parseCallMessage } from './parse-call.js';
import type { Gateway } from './gateway.js';
import { type ConfigSnapshot, drainBoundMs, type LiveConfig } from './live-config.js';
import type { Logger } from './logger.js';
import { type Readmission, readmit } from './ws-readmit.js';
import { messageTraceparent } from './tracing/message-traceparent.js';

/** The slice of a WebSocket the session needs; Node's `ws` and the Workers runtime both provide it. */
export interface SessionSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Bytes queued for the peer and not yet written (absent where the runtime does not say). */
  buffered?(): number;
}

/** setTimeout's longest delay (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One multiplexed JSON-RPC connection: many calls in flight, answered in any order; a frame that
 * is not JSON-RPC gets a JSON-RPC error and the socket stays open; calls beyond the in-flight bound
 * are refused with an error instead of queued; the socket closes with 4001 when its token expires
 * (close codes: src/lib/close-codes.ts).
 */
export class WsSession {
  private inFlight = 0;
  private closed = false;
  private expiryTimer?: ReturnType<typeof setTimeout>;
  private readonly drained: Array<() => void> = [];
  /** Set when a reload removed this socket's hook: new calls are refused while the last ones finish. */
  private retiring?: string;
  /** The config snapshot this socket's token and hook were last checked under. */
  private snapshot?: ConfigSnapshot;
  /** A re-check against the current config under way; frames that arrive meanwhile wait in `held`. */
  private checking?: Promise<void>;
  private readonly held: string[] = [];
  /**
   * Aborted when the socket goes (the peer left, or the gateway closed it): a call held for a
   * person then ends at once, since its answer could no longer be sent. PicoClaw's protocol has no
   * per-call cancel, so every call on the socket shares this one.
   */
  private readonly gone = new AbortController();

  constructor(
    private readonly socket: SessionSocket,
    private readonly gateway: Gateway,
    private principal: Principal,
    private hook: HookRuntime,
    private readonly opts: {
      maxInFlight: number;
      log: Logger;
      connectionId: string;
      highWaterBytes?: number;
      /** The token the socket was opened with, re-checked when a reload changes the tenant's keys. */
      token?: string;
      /**
       * Where the current config is, and the snapshot the upgrade was verified under. A socket
       * whose snapshot is not the current one is re-checked before it carries another call.
       */
      live?: LiveConfig;
      snapshot?: ConfigSnapshot;
      /** The upgrade request's `traceparent`: the parent of calls whose message names none. */
      traceparent?: string;
    },
  ) {
    this.snapshot = opts.live ? opts.snapshot : undefined;
    this.armExpiry();
    // The upgrade was verified before a reload that landed while it completed: check it now, so a
    // socket admitted by a removed key closes at once rather than at its first call.
    if (this.stale()) void this.revalidate();
  }

  get pending(): number {
    return this.inFlight;
  }

  /**
   * A reload changed this hook's config: calls from now on use the new one (and its backend);
   * calls in flight finish on the old backend.
   */
  private rebind(hook: HookRuntime, principal = this.principal): void {
    this.hook = hook;
    this.principal = principal;
  }

  /**
   * Brings this socket under the current config (see readmit): it goes on calling the current
   * hook object, or closes with 1008 (token no longer accepted), 4001, or 4004 once its calls are
   * answered (hook or tenant removed). Frames that arrive meanwhile are held and then handled in
   * order, so no call runs under a config the socket was not checked against. Resolves once
   * decided; a reload awaits it for the sockets open when it swapped, later ones check themselves.
   */
  revalidate(): Promise<void> {
    this.checking ??= this.recheckUntilCurrent().finally(() => {
      this.checking = undefined;
      for (const text of this.held.splice(0)) this.onText(text);
    });
    return this.checking;
  }

  /** Admitted under a config that is no longer the current one, and not already on its way out. */
  private stale(): boolean {
    const live = this.opts.live;
    return !!live && !!this.snapshot && this.snapshot !== live.current && !this.closed && !this.retiring;
  }

  private async recheckUntilCurrent(): Promise<void> {
    // Another reload may land while a token is being verified: check again until nothing changed.
    while (this.stale()) {
      const now = (this.opts.live as LiveConfig).current;
      let verdict: Readmission;
      try {
        verdict = await readmit(
          { hook: this.hook, token: this.opts.token, snapshot: this.snapshot as ConfigSnapshot },
          now,
        );
      } catch (err) {
        // Not decided is not admitted: close rather than carry calls unchecked.
        this.opts.log.error(
          { err: String(err), connection_id: this.opts.connectionId },
          'could not re-check a WebSocket against the current config; closed',
        );
        this.close(CloseCode.InternalError, 'gateway error');
        return;
      }
      if (this.closed) return;
      if (verdict.kind === 'gone') {
        void this.retire(CloseCode.HookRemoved, verdict.reason, drainBoundMs(this.hook));
        return;
      }
      if (verdict.kind === 'refused') {
        this.close(verdict.code, verdict.reason);
        return;
      }
      if (verdict.unchecked) {
        this.opts.log.warn(
          { tenant: this.hook.tenant, hook: this.hook.name, err: verdict.unchecked },
          'could not re-check an open WebSocket after a key change; left open',
        );
      }
      this.rebind(verdict.hook, verdict.principal);
      this.snapshot = now;
    }
  }

  /** A frame that arrived during a re-check; beyond the in-flight bound, calls are refused. */
  private hold(text: string): void {
    if (this.held.length < this.opts.maxInFlight) {
      this.held.push(text);
      void this.revalidate();
      return;
    }
    const parsed = parseMessage(text);
    if (parsed.ok && isRequest(parsed.message)) {
      this.sendJson(
        failure(
          parsed.message.id,
          ErrorCode.Overloaded,
          `too many calls in flight (limit ${this.opts.maxInFlight})`,
        ),
      );
    }
  }

  /**
   * Closes with `code` once the calls in flight are answered (at most `graceMs`); new calls are
   * refused meanwhile. For a hook a reload removed: what was asked before still gets its answer.
   */
  retire(code: number, reason: string, graceMs: number): Promise<void> {
    this.retiring = reason;
    return this.idle(graceMs).then(() => this.close(code, reason));
  }

  private armExpiry(nowMs = Date.now()): void {
    const ms = this.principal.exp * 1000 - nowMs;
    if (ms <= 0) {
      this.close(CloseCode.TokenExpired, 'token expired');
      return;
    }
    this.expiryTimer = setTimeout(() => this.armExpiry(), Math.min(ms, MAX_TIMER_MS));
  }

  onText(text: string): void {
    if (this.closed) return;
    if (this.checking || this.stale()) {
      this.hold(text);
      return;
    }
    const parsed = parseCallMessage(text, this.hook);
    if (!parsed.ok) {
      this.sendJson(parsed.response);
      return;
    }
    const msg = parsed.message;
    if (this.retiring !== undefined) {
      if (isRequest(msg)) this.sendJson(failure(msg.id, ErrorCode.ShuttingDown, this.retiring));
      return;
    }
    if (isRequest(msg) && this.backlogged()) {
      // A peer that does not read its answers must not make the gateway queue them without bound.
      this.sendJson(failure(msg.id, ErrorCode.Overloaded, 'answers are not being read; slow down'));
      return;
    }
    if (isRequest(msg) && this.inFlight >= this.opts.maxInFlight) {
      this.sendJson(
        failure(msg.id, ErrorCode.Overloaded, `too many calls in flight (limit ${this.opts.maxInFlight})`),
      );
      return;
    }
    const counted = isRequest(msg);
    if (counted) {
      this.inFlight++;
      // A stdio hook gets these params as the client wrote them if nothing changes them on the way.
      rememberParamsText(msg, text);
    }
    const traceparent = messageTraceparent(msg) ?? this.opts.traceparent;
    this.gateway
      .respond(this.principal, this.hook, msg, this.opts.connectionId, undefined, {
        traceparent,
        signal: this.gone.signal,
      })
      .then(
        (text) => {
          // sendText never throws: a failed send is logged there.
          if (text !== null) this.sendText(text);
          if (counted) this.finished();
        },
        (err: unknown) => {
          // respond() never rejects; this is a last line of defence that still answers the call.
          this.opts.log.error({ err: String(err), connection_id: this.opts.connectionId }, 'ws call failed');
          if (counted) {
            this.sendJson(failure((msg as { id: JsonRpcId }).id, ErrorCode.InternalError, 'internal error'));
            this.finished();
          }
        },
      );
  }

  private finished(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.drained.length > 0) for (const f of this.drained.splice(0)) f();
  }

  private backlogged(): boolean {
    const high = this.opts.highWaterBytes;
    return !!high && !!this.socket.buffered && this.socket.buffered() > high;
  }

  /** Binary frames are not JSON-RPC text; answer with an error and keep the socket. */
  onBinary(): void {
    this.sendJson(
      failure(null, ErrorCode.InvalidRequest, 'binary frames are not supported; send JSON text frames'),
    );
  }

  /** Resolves when no call is in flight (or after `timeoutMs`), for graceful shutdown. */
  idle(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, timeoutMs);
      this.drained.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.held.length = 0;
    clearTimeout(this.expiryTimer);
    this.gone.abort();
    try {
      this.socket.close(code, reason);
    } catch {
      // already closing
    }
  }

  /** The peer went away. */
  onClose(): void {
    this.closed = true;
    clearTimeout(this.expiryTimer);
    this.gone.abort();
  }

  private sendJson(value: unknown): void {
    this.sendText(JSON.stringify(value));
  }

  private sendText(text: string): void {
    if (this.closed) return;
    try {
      this.socket.send(text);
      // Answers already computed for a peer that does not read them: past four times the
      // high-water mark, stop instead of queueing more (its pending calls fail on its side).
      const high = this.opts.highWaterBytes;
      if (high && this.socket.buffered && this.socket.buffered() > 4 * high) {
        this.opts.log.warn(
          { connection_id: this.opts.connectionId },
          'closing a WebSocket that does not read its answers',
        );
        this.close(CloseCode.TryAgainLater, 'slow consumer');
      }
    } catch (err) {
      this.opts.log.debug({ err: String(err), connection_id: this.opts.connectionId }, 'ws send failed');
    }
  }
}
