import type { BridgeLog } from './log.js';
import type { ForwardedRequest, Upstream, UpstreamError } from './upstream.js';
import { HttpUpstream } from './upstream-http.js';
import { WsUpstream } from './upstream-ws.js';

export interface AutoUpstreamOptions {
  wsUrl: string;
  httpUrl: string;
  token: string;
  log: BridgeLog;
}

/**
 * `--transport auto`: the WebSocket when it is open, HTTP POST when it is not. When the gateway
 * answers the upgrade with plain HTTP (no WebSocket there: a proxy, a serverless host), the bridge
 * stops trying and uses HTTP for good. While the WebSocket is merely down (restart, network), it
 * keeps reconnecting in the background and calls go over HTTP meanwhile. A refused token is not
 * retried over HTTP: it would only be refused again.
 */
export class AutoUpstream implements Upstream {
  private readonly ws: WsUpstream;
  private readonly http: HttpUpstream;
  private noWebSocket = false;
  private httpMeanwhileLogged = false;
  private hello?: unknown;

  constructor(private readonly options: AutoUpstreamOptions) {
    this.ws = new WsUpstream({
      url: options.wsUrl,
      token: options.token,
      log: options.log,
      onNoWebSocket: (err) => this.fallBack(err),
    });
    this.http = new HttpUpstream({ url: options.httpUrl, token: options.token, log: options.log });
  }

  start(hello?: unknown): void {
    if (hello !== undefined) this.hello = hello;
    if (!this.noWebSocket) this.ws.start(hello);
  }

  call(method: string, params: unknown, timeoutMs: number, forwarded?: ForwardedRequest): Promise<unknown> {
    // The WebSocket is open (ready() would say so at once): straight to it, without a turn's wait.
    if (this.wsOpen()) return this.ws.call(method, params, timeoutMs, forwarded);
    return this.callWhenDecided(method, params, timeoutMs, forwarded);
  }

  batch(fn: () => void): void {
    if (this.wsOpen()) this.ws.batch(fn);
    else fn();
  }

  private wsOpen(): boolean {
    return !this.noWebSocket && this.ws.phase === 'open';
  }

  private async callWhenDecided(
    method: string,
    params: unknown,
    timeoutMs: number,
    forwarded?: ForwardedRequest,
  ): Promise<unknown> {
    const started = Date.now();
    const opened = !this.noWebSocket && (await this.ws.ready(timeoutMs));
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    if (opened) return this.ws.call(method, params, left, forwarded);
    if (!this.noWebSocket && this.ws.failure.code === 'UPSTREAM_AUTH') throw this.ws.failure;
    if (!this.noWebSocket && !this.httpMeanwhileLogged) {
      this.httpMeanwhileLogged = true;
      this.options.log.info('WebSocket down; calls use HTTP POST until it is back', {
        reason: this.ws.failure.message,
      });
    }
    return this.viaHttp().call(method, params, left);
  }

  async notify(method: string, params: unknown): Promise<void> {
    if (!this.noWebSocket && (this.ws.phase !== 'down' || this.ws.failure.code === 'UPSTREAM_AUTH')) {
      return this.ws.notify(method, params);
    }
    return this.viaHttp().notify(method, params);
  }

  async close(): Promise<void> {
    await Promise.all([this.ws.close(), this.http.close()]);
  }

  private fallBack(err: UpstreamError): void {
    if (this.noWebSocket) return;
    this.noWebSocket = true;
    this.options.log.warn('no WebSocket at the gateway; using HTTP POST from now on', {
      reason: err.message,
    });
    void this.ws.close();
    this.viaHttp();
  }

  private viaHttp(): HttpUpstream {
    this.http.start(this.hello);
    return this.http;
  }
}
