import {
  createSigner,
  newWebhookId,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type WebhookSigner,
} from '../core/webhook-signature.js';
import { requestJson } from '../core/params-text.js';
import { Backoff } from '../lib/backoff.js';
import { findDuplicateKey } from '../lib/json-duplicate-keys.js';
import { isResponse, validateEnvelope } from '../protocol/jsonrpc.js';
import { BackendError, type BackendContext, type CallContext, type HookBackend } from './types.js';

export interface HttpBackendOptions {
  /** The upstream endpoint; every call and event is one POST to it. */
  url: string;
  /** `whsec_…` secrets, already resolved. Each one adds a `v1,` entry, so keys rotate without downtime. */
  secrets: string[];
  /** Upper bound per request; a call uses the smaller of this and the caller's deadline. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Extra attempts for an event after a network error, 429 or 5xx (default 3). Calls never retry. */
  eventRetries?: number;
  /** First backoff step for event retries (default 200 ms, doubled per attempt, with jitter). */
  retryBaseMs?: number;
  /** Events being delivered at once; more are dropped and counted (default 256). */
  maxEventsInFlight?: number;
  /** Largest reply body accepted (default 8 MiB). */
  maxResponseBytes?: number;
}

export const TENANT_HEADER = 'x-hookgate-tenant';
export const HOOK_HEADER = 'x-hookgate-hook';
const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/**
 * Error pages and event replies are read to the end up to this size, because undici reuses a
 * connection only once its body was consumed; past it the body is cancelled (and the socket lost).
 */
const DRAIN_BYTES = 64 * 1024;

/** Why an in-flight request was aborted, so the catch block can tell timeout from shutdown. */
const TIMED_OUT = Symbol('timed out');
const CLOSED = Symbol('closed');

/**
 * A hook behind an HTTP endpoint (a serverless function, a Worker, any web server): one JSON-RPC
 * message per POST, signed per Standard Webhooks. Runtime-neutral: fetch and Web Crypto only.
 */
export class HttpBackend implements HookBackend {
  readonly kind = 'http' as const;
  private readonly url: string;
  private readonly signer: WebhookSigner;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly eventRetries: number;
  private readonly retryBaseMs: number;
  private readonly maxEventsInFlight: number;
  private readonly maxResponseBytes: number;
  private readonly active = new Set<AbortController>();
  private readonly closing = new AbortController();
  private nextId = 1;
  private events = 0;
  private dropped = 0;
  private closed = false;

  constructor(
    options: HttpBackendOptions,
    private readonly context: BackendContext,
  ) {
    const url = parseUrl(options.url);
    this.url = url;
    this.signer = createSigner(options.secrets);
    // Called unbound: Workers throw "Illegal invocation" when fetch runs with a foreign `this`.
    const doFetch = options.fetch ?? fetch;
    this.fetch = (input, init) => doFetch(input, init);
    this.timeoutMs = positive('timeoutMs', options.timeoutMs);
    this.eventRetries = nonNegativeInt('eventRetries', options.eventRetries ?? 3);
    this.retryBaseMs = positive('retryBaseMs', options.retryBaseMs ?? 200);
    this.maxEventsInFlight = positive('maxEventsInFlight', options.maxEventsInFlight ?? 256);
    this.maxResponseBytes = positive(
      'maxResponseBytes',
      options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    );
  }

  /** Events dropped because too many were in flight (a slow upstream). */
  get droppedEvents(): number {
    return this.dropped;
  }

  get eventsInFlight(): number {
    return this.events;
  }

  async start(): Promise<void> {
    // Deliberately no probe: a serverless upstream may cold-start; calls carry their own deadlines.
  }

  ready(): boolean {
    return !this.closed;
  }

  async call(method: string, params: unknown, timeoutMs: number, ctx?: CallContext): Promise<unknown> {
    if (this.closed) throw new BackendError('BACKEND_CLOSED', 'backend is closed');
    const id = this.nextId++;
    // Params nothing changed go as the host wrote them (core/params-text.ts).
    const body = requestJson(id, method, params);
    const limit = Math.max(0, Math.min(timeoutMs, this.timeoutMs));
    const text = await this.exchange(body, limit, method, 'call', newWebhookId(), ctx?.traceparent);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new BackendError('BACKEND_BAD_REPLY', `${method}: reply is not JSON: ${snippet(text)}`);
    }
    // As PicoClaw: a reply need not say "jsonrpc":"2.0"; its id must still be ours exactly.
    const parsed = validateEnvelope(value, { lenientResponses: true });
    if (!parsed.ok || !isResponse(parsed.message)) {
      throw new BackendError('BACKEND_BAD_REPLY', `${method}: reply is not a JSON-RPC response`);
    }
    const reply = parsed.message;
    if (reply.id !== id) {
      throw new BackendError(
        'BACKEND_BAD_REPLY',
        `${method}: reply id ${JSON.stringify(reply.id)} is not ${id}`,
      );
    }
    // JSON.parse kept one of a repeated key and lost the order Go would apply them in: ambiguous.
    const repeated = findDuplicateKey(text);
    if (repeated !== undefined) {
      throw new BackendError(
        'BACKEND_BAD_REPLY',
        `${method}: reply repeats the key ${JSON.stringify(repeated)}`,
      );
    }
    if ('error' in reply) {
      const message = `${method}: hook answered an error: ${reply.error.message}`;
      throw new BackendError('BACKEND_ERROR_REPLY', message, { cause: reply.error });
    }
    return reply.result;
  }

  notify(method: string, params: unknown): void {
    if (this.closed) return;
    if (this.events >= this.maxEventsInFlight) {
      this.dropped++;
      // One line per hundred drops: a stuck upstream must not flood the log either.
      if (this.dropped % 100 === 1) {
        this.context.log.warn(
          { method, dropped: this.dropped },
          'http hook: too many events in flight, dropping',
        );
      }
      return;
    }
    let body: string;
    try {
      body = JSON.stringify({ jsonrpc: '2.0', method, params });
    } catch (err) {
      this.context.log.warn({ method, err: String(err) }, 'http hook: event not serialisable');
      return;
    }
    this.events++;
    void this.deliver(method, body)
      .catch(() => {})
      .finally(() => this.events--);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    for (const controller of this.active) controller.abort(CLOSED);
    this.active.clear();
  }

  /** One event, retried on transient failures; logs instead of throwing. */
  private async deliver(method: string, body: string): Promise<void> {
    // The same webhook-id on every attempt, as Standard Webhooks asks, so the receiver can dedupe.
    const webhookId = newWebhookId();
    // Doubles from retryBaseMs per attempt, drawn from the upper half (see Backoff).
    const backoff = new Backoff(this.retryBaseMs, this.retryBaseMs * 2 ** Math.max(0, this.eventRetries - 1));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.exchange(body, this.timeoutMs, method, 'event', webhookId);
        return;
      } catch (err) {
        const retryable = err instanceof BackendError && isTransient(err);
        if (this.closed || !retryable || attempt >= this.eventRetries) {
          if (!this.closed) {
            this.context.log.warn(
              { method, attempts: attempt + 1, err: String(err) },
              'http hook: event not delivered',
            );
          }
          return;
        }
      }
      await this.sleep(backoff.next());
      if (this.closed) return;
    }
  }

  /** POSTs one signed message and returns the reply body; maps every failure to a BackendError. */
  private async exchange(
    body: string,
    timeoutMs: number,
    method: string,
    kind: 'call' | 'event',
    webhookId = newWebhookId(),
    /** The gateway's span for this hook call (W3C Trace Context), sent as the `traceparent` header. */
    traceparent?: string,
  ): Promise<string> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
    this.active.add(controller);
    try {
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await this.fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [WEBHOOK_ID_HEADER]: webhookId,
          [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
          [WEBHOOK_SIGNATURE_HEADER]: await this.signer.sign(webhookId, timestamp, body),
          // Informational only (not covered by the signature): lets one upstream serve many hooks.
          [TENANT_HEADER]: this.context.tenant,
          [HOOK_HEADER]: this.context.hook,
          ...(traceparent === undefined ? {} : { traceparent }),
        },
        body,
        // A redirect would send the signed message somewhere the config never named.
        redirect: 'manual',
        signal: controller.signal,
      });
      if (!response.ok || kind === 'event') {
        const page = (await readCapped(response, DRAIN_BYTES).catch(() => undefined))?.text ?? '';
        if (response.ok) return page;
        throw new BackendError(
          'BACKEND_UNAVAILABLE',
          `${method}: upstream answered HTTP ${response.status}: ${snippet(page)}`,
          { cause: { status: response.status } },
        );
      }
      const { text, truncated } = await readCapped(response, this.maxResponseBytes);
      if (truncated) {
        throw new BackendError(
          'BACKEND_BAD_REPLY',
          `${method}: reply is larger than ${this.maxResponseBytes} bytes`,
        );
      }
      return text;
    } catch (err) {
      throw this.mapError(err, controller.signal, method, timeoutMs);
    } finally {
      clearTimeout(timer);
      this.active.delete(controller);
    }
  }

  private mapError(err: unknown, signal: AbortSignal, method: string, timeoutMs: number): BackendError {
    if (err instanceof BackendError) return err;
    if (signal.aborted && signal.reason === TIMED_OUT) {
      return new BackendError('BACKEND_TIMEOUT', `${method}: no reply within ${timeoutMs} ms`);
    }
    if (signal.aborted && signal.reason === CLOSED) {
      return new BackendError('BACKEND_CLOSED', `${method}: backend closed`);
    }
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return new BackendError('BACKEND_UNAVAILABLE', `${method}: ${String(err)}${cause}`, { cause: err });
  }

  /** A backoff wait that close() ends at once. */
  private sleep(ms: number): Promise<void> {
    const signal = this.closing.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    });
  }
}

function isTransient(err: BackendError): boolean {
  if (err.code === 'BACKEND_TIMEOUT') return true;
  if (err.code !== 'BACKEND_UNAVAILABLE') return false;
  const status = (err.cause as { status?: number } | undefined)?.status;
  return status === undefined || status === 429 || status >= 500;
}

function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`http backend: url is not a valid URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`http backend: url must be http(s), got ${url.protocol}`);
  }
  return url.href;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`http backend: ${name} must be > 0 (got ${value})`);
  }
  return value;
}

function nonNegativeInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`http backend: ${name} must be an integer >= 0 (got ${value})`);
  }
  return value;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? flat.slice(0, 200) + '…' : flat;
}

/**
 * Reads at most `maxBytes` of a body as UTF-8 and cancels the rest, so neither a huge reply nor an
 * endless one can grow memory.
 */
async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      parts.push(value.subarray(0, maxBytes - size));
      await reader.cancel().catch(() => {});
      return { text: decode(parts), truncated: true };
    }
    parts.push(value);
    size += value.length;
  }
  return { text: decode(parts), truncated: false };
}

function decode(parts: Uint8Array[]): string {
  const decoder = new TextDecoder();
  let text = '';
  for (const p of parts) text += decoder.decode(p, { stream: true });
  return text + decoder.decode();
}
