import { readCapped } from '../core/read-capped.js';
import { Method } from '../protocol/methods.js';
import { validateEnvelope } from '../protocol/jsonrpc.js';
import type { BridgeLog } from './log.js';
import { describeErrorBody, type Upstream, UpstreamError } from './upstream.js';
import { errorText } from './ws-connect.js';

export interface HttpUpstreamOptions {
  url: string;
  token: string;
  log: BridgeLog;
  /** How long a notification POST may take before it counts as dropped. */
  notifyTimeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The gateway over HTTP POST: one JSON-RPC message per request, the answer in the body, 202 for a
 * notification. Stateless, so there is nothing to reconnect; every call stands alone and fails alone.
 * Redirects are not followed, so the bearer token only ever goes to the configured origin.
 */
export class HttpUpstream implements Upstream {
  private nextId = 1;
  private started = false;
  private readonly stop = new AbortController();
  private lastLogged = { text: '', at: 0 };

  constructor(private readonly options: HttpUpstreamOptions) {}

  start(hello?: unknown): void {
    if (this.started) return;
    this.started = true;
    // Who chose HTTP says why (index for --transport http, AutoUpstream for a fallback).
    this.options.log.debug('using the gateway over HTTP POST', { transport: 'http' });
    if (hello === undefined) return;
    // The gateway answers hello itself: it proves the URL and the token before PicoClaw's first call.
    this.call(Method.Hello, hello, 10_000).then(
      (r) => {
        const res = (r ?? {}) as Record<string, unknown>;
        this.options.log.info('gateway hello', { hook: res.name, modes: res.modes, tools: res.tools });
      },
      () => {
        // post() has already logged why.
      },
    );
  }

  async call(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    const { status, body } = await this.post({ jsonrpc: '2.0', id, method, params }, timeoutMs);
    if (status !== 200)
      throw new UpstreamError('UPSTREAM_BAD_REPLY', `gateway answered ${describeErrorBody(status, body)}`);
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      throw new UpstreamError('UPSTREAM_BAD_REPLY', 'gateway answer is not JSON');
    }
    const parsed = validateEnvelope(value);
    if (!parsed.ok || !('id' in parsed.message) || parsed.message.id !== id) {
      throw new UpstreamError(
        'UPSTREAM_BAD_REPLY',
        'gateway answer is not the JSON-RPC response to this call',
      );
    }
    const msg = parsed.message as { result?: unknown; error?: { code: number; message: string } };
    if (msg.error) {
      throw new UpstreamError(
        'UPSTREAM_ERROR_REPLY',
        `gateway answered with error ${msg.error.code}: ${msg.error.message}`,
      );
    }
    if (!('result' in msg)) throw new UpstreamError('UPSTREAM_BAD_REPLY', 'gateway answer has no result');
    return msg.result;
  }

  async notify(method: string, params: unknown): Promise<void> {
    const { status, body } = await this.post(
      { jsonrpc: '2.0', method, params },
      this.options.notifyTimeoutMs ?? 10_000,
    );
    if (status < 200 || status >= 300) {
      throw new UpstreamError('UPSTREAM_BAD_REPLY', `gateway answered ${describeErrorBody(status, body)}`);
    }
  }

  async close(): Promise<void> {
    this.stop.abort();
  }

  private async post(message: unknown, timeoutMs: number): Promise<{ status: number; body: string }> {
    if (this.stop.signal.aborted) throw new UpstreamError('UPSTREAM_STOPPED', 'bridge is stopping');
    const timeout = AbortSignal.timeout(Math.max(1, timeoutMs));
    let res: Response;
    try {
      res = await fetch(this.options.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.options.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(message),
        redirect: 'manual',
        signal: AbortSignal.any([timeout, this.stop.signal]),
      });
    } catch (err) {
      if (timeout.aborted)
        throw new UpstreamError('UPSTREAM_TIMEOUT', `gateway did not answer within ${timeoutMs} ms`);
      if (this.stop.signal.aborted) throw new UpstreamError('UPSTREAM_STOPPED', 'bridge is stopping');
      const cause = (err as { cause?: unknown }).cause;
      throw this.logged(
        new UpstreamError('UPSTREAM_UNAVAILABLE', `gateway unreachable: ${errorText(cause ?? err)}`),
      );
    }
    let body: string;
    try {
      body = await readAnswer(res, MAX_RESPONSE_BYTES);
    } catch (err) {
      if (timeout.aborted)
        throw new UpstreamError('UPSTREAM_TIMEOUT', `gateway did not answer within ${timeoutMs} ms`);
      throw new UpstreamError('UPSTREAM_BAD_REPLY', `reading the gateway answer failed: ${errorText(err)}`);
    }
    if (res.status === 401 || res.status === 403) {
      throw this.logged(
        new UpstreamError(
          'UPSTREAM_AUTH',
          `gateway refused the token: ${describeErrorBody(res.status, body)}`,
        ),
      );
    }
    return { status: res.status, body };
  }

  /** Connection-level trouble is logged once per new reason and then once a minute. */
  private logged(error: UpstreamError): UpstreamError {
    const now = Date.now();
    if (error.message !== this.lastLogged.text || now - this.lastLogged.at >= 60_000) {
      this.lastLogged = { text: error.message, at: now };
      this.options.log.warn('cannot reach the gateway', { code: error.code, reason: error.message });
    }
    return error;
  }
}

async function readAnswer(res: Response, max: number): Promise<string> {
  const bytes = await readCapped(res.body, max);
  if (bytes === undefined) throw new Error(`answer is larger than ${max} bytes`);
  return new TextDecoder().decode(bytes);
}
