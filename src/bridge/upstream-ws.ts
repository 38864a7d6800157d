import type WebSocket from 'ws';
import { JsonRpcPeer, PeerError } from '../core/peer.js';
import { closeReaction } from '../lib/close-codes.js';
import { Method } from '../protocol/methods.js';
import { WsConnector } from './ws-connect.js';
import type { BridgeLog } from './log.js';
import { Backoff, type ForwardedRequest, fromPeerError, type Upstream, UpstreamError } from './upstream.js';
import { WsClientTransport } from './ws-transport.js';

export interface WsUpstreamOptions {
  url: string;
  token: string;
  log: BridgeLog;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  handshakeTimeoutMs?: number;
  /** A ping every this often; no pong by the next one means the gateway is gone. */
  pingIntervalMs?: number;
  /** Called when the gateway answers the upgrade with plain HTTP (auto mode then uses HTTP POST). */
  onNoWebSocket?: (error: UpstreamError) => void;
}

/** What the log says next to a close, by how the bridge reacts to it. */
const HINTS = {
  reconnect: undefined,
  reauthenticate: { hint: 'the token is no longer accepted; set a fresh HOOKGATE_TOKEN' },
  give_up: { hint: 'the gateway no longer serves this hook; check its config (retrying in the background)' },
} as const;

export type WsPhase = 'idle' | 'connecting' | 'open' | 'down' | 'stopped';

/**
 * One long-lived WebSocket to the gateway, reopened with jittered backoff. Each connection gets its
 * own JsonRpcPeer, so when a connection drops its pending calls fail at once (PEER_CLOSED), not at
 * their deadlines. Calls made while a connection attempt is under way wait for it (within their
 * deadline); calls made while the gateway is known to be down fail at once.
 */
export class WsUpstream implements Upstream {
  private state: WsPhase = 'idle';
  private peer?: JsonRpcPeer;
  private transport?: WsClientTransport;
  private hello?: unknown;
  private lastFailure = new UpstreamError('UPSTREAM_UNAVAILABLE', 'not connected to the gateway yet');
  private readonly waiters = new Set<() => void>();
  private readonly backoff: Backoff;
  private readonly connector: WsConnector;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private lastLogged = { text: '', at: 0 };

  constructor(private readonly options: WsUpstreamOptions) {
    this.backoff = new Backoff(options.reconnectMinMs ?? 250, options.reconnectMaxMs ?? 3000);
    this.connector = new WsConnector(options.url, options.token, options.handshakeTimeoutMs ?? 10_000);
  }

  get phase(): WsPhase {
    return this.state;
  }

  /** Why the last connection attempt failed or the last connection ended. */
  get failure(): UpstreamError {
    return this.lastFailure;
  }

  start(hello?: unknown): void {
    if (hello !== undefined) this.hello = hello;
    if (this.state === 'idle') void this.connect();
  }

  /** Resolves true once open; false when the attempt under way fails, none is under way, or time is up. */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.state === 'open') return Promise.resolve(true);
    if (this.state !== 'connecting') return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(this.state === 'open');
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      this.waiters.add(done);
    });
  }

  call(method: string, params: unknown, timeoutMs: number, forwarded?: ForwardedRequest): Promise<unknown> {
    // The common case, connected: straight to the peer, without waiting a turn for ready().
    if (this.state === 'open' && this.peer) {
      return this.peer
        .call(method, params, timeoutMs, forwarded)
        .catch((err: unknown) => Promise.reject(fromPeerError(err, timeoutMs)));
    }
    return this.callWhenReady(method, params, timeoutMs, forwarded);
  }

  private async callWhenReady(
    method: string,
    params: unknown,
    timeoutMs: number,
    forwarded?: ForwardedRequest,
  ): Promise<unknown> {
    const started = Date.now();
    if (!(await this.ready(timeoutMs)) || !this.peer) throw this.notOpen();
    const left = timeoutMs - (Date.now() - started);
    if (left <= 0) {
      throw new UpstreamError('UPSTREAM_TIMEOUT', `gateway did not answer within ${timeoutMs} ms`);
    }
    try {
      return await this.peer.call(method, params, left, forwarded);
    } catch (err) {
      throw fromPeerError(err, timeoutMs);
    }
  }

  batch(fn: () => void): void {
    if (this.state === 'open' && this.transport) this.transport.batch(fn);
    else fn();
  }

  async notify(method: string, params: unknown): Promise<void> {
    // Events wait briefly for a connection under way (startup), never for a gateway known to be down.
    if (!(await this.ready(2000)) || !this.peer) throw this.notOpen();
    await this.peer.notify(method, params);
  }

  async close(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.lastFailure = new UpstreamError('UPSTREAM_STOPPED', 'bridge is stopping');
    clearTimeout(this.retryTimer);
    this.wake();
    this.connector.abort();
    this.peer?.failAll(new PeerError('PEER_CLOSED', 'bridge is stopping'));
    await this.transport?.close();
  }

  /** A method, not a field read, so TypeScript does not narrow it across awaits and callbacks. */
  private stopped(): boolean {
    return this.state === 'stopped';
  }

  private notOpen(): UpstreamError {
    if (this.state === 'connecting') {
      return new UpstreamError('UPSTREAM_TIMEOUT', 'the connection to the gateway is still opening');
    }
    return this.lastFailure;
  }

  private async connect(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'connecting';
    const outcome = await this.connector.open();
    if (this.stopped()) {
      if (outcome.ok) outcome.ws.terminate();
      return;
    }
    if (outcome.ok) this.opened(outcome.ws);
    else this.attemptFailed(outcome.error);
  }

  private opened(ws: WebSocket): void {
    const transport = new WsClientTransport(ws, {
      ondisconnect: (code, reason) => this.lost(code, reason),
      pingIntervalMs: this.options.pingIntervalMs ?? 20_000,
      ondead: () => this.options.log.warn('gateway stopped answering pings; dropping the connection'),
    });
    this.transport = transport;
    this.peer = new JsonRpcPeer(transport, {
      // Host requests keep their ids upstream; the bridge's own calls (hello check) use these.
      idPrefix: 'hookgate-bridge-',
      onstray: (_text, why) => this.options.log.debug('ignored a message from the gateway', { why }),
      onrequest: (msg) =>
        this.options.log.debug('ignored a gateway-initiated message', {
          method: 'method' in msg ? msg.method : undefined,
        }),
    });
    this.state = 'open';
    // Not a reset: a gateway that closes every connection right after opening it (slow consumer,
    // a removed hook) is retried with growing delays; a connection that lasted starts over.
    this.backoff.started();
    this.lastLogged = { text: '', at: 0 };
    this.options.log.info('connected to the gateway', { transport: 'ws' });
    this.wake();
    if (this.hello !== undefined) this.checkHello(this.peer);
  }

  /** The gateway answers hook.hello itself: a cheap end-to-end check, logged, never blocking calls. */
  private checkHello(peer: JsonRpcPeer): void {
    peer.call(Method.Hello, this.hello, 10_000).then(
      (result) => {
        const r = (result ?? {}) as Record<string, unknown>;
        this.options.log.info('gateway hello', { hook: r.name, modes: r.modes, tools: r.tools });
      },
      (err) => this.options.log.warn('gateway hello failed', { error: err }),
    );
  }

  private lost(code: number, reason: string): void {
    this.peer = undefined;
    this.transport = undefined;
    if (this.state === 'stopped') return;
    // Only a close that says the token is no longer good (expired, its key removed) makes calls
    // fail as a refusal; a slow-consumer close or a restart is reconnected as any dropped socket.
    const reaction = closeReaction(code);
    const auth = reaction === 'reauthenticate';
    const text = `connection to the gateway closed (${code}${reason ? ` ${reason}` : ''})`;
    this.lastFailure = new UpstreamError(auth ? 'UPSTREAM_AUTH' : 'UPSTREAM_CLOSED', text);
    this.options.log.warn(text, HINTS[reaction]);
    this.state = 'down';
    this.scheduleReconnect();
  }

  private attemptFailed(error: UpstreamError): void {
    this.lastFailure = error;
    this.state = 'down';
    this.wake();
    this.logFailure(error);
    if (error.code === 'UPSTREAM_NO_WEBSOCKET' && this.options.onNoWebSocket) {
      this.options.onNoWebSocket(error);
      if (this.stopped()) return;
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    clearTimeout(this.retryTimer);
    const delay = this.backoff.next();
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }

  /** One line per new reason, then one a minute: PicoClaw logs each stderr line as a warning. */
  private logFailure(error: UpstreamError): void {
    const now = Date.now();
    if (error.message === this.lastLogged.text && now - this.lastLogged.at < 60_000) return;
    this.lastLogged = { text: error.message, at: now };
    this.options.log.warn('cannot connect to the gateway', { code: error.code, reason: error.message });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
