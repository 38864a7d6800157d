import { readCapped } from '../core/read-capped.js';
import { HOOK_HEADER, TENANT_HEADER } from '../backends/http.js';
import { createVerifier, DEFAULT_TOLERANCE_SECONDS } from '../core/webhook-signature.js';
import type { HookObject } from '../protocol/hook-object.js';
import { ErrorCode, failure, isNotification, isRequest, parseMessage, success } from '../protocol/jsonrpc.js';
import { dispatchToHook } from './define-hook.js';

export interface FetchHandlerOptions {
  /** `whsec_…` secret(s); several while rotating. */
  secret: string | string[];
  /** Allowed clock skew for `webhook-timestamp`, both ways; also how long ids are remembered. */
  toleranceSeconds?: number;
  /** Largest accepted body (default 8 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /** Delivery ids remembered for replay refusal (default 100,000; the oldest is forgotten first). */
  replayCacheSize?: number;
  /** Called when a notification handler throws (its sender gets 202 either way). */
  onError?: (error: unknown, method: string) => void;
}

export type FetchHandler = (request: Request) => Promise<Response>;

const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * Serves a hook object over HTTP for any fetch-style runtime (Workers, Deno, Bun, Node adapters):
 * one signed JSON-RPC message per POST, as hookgate's http backend sends it.
 *
 * Status codes: transport failures get an HTTP status and `{"error":{"code","message"}}` (405, 413,
 * 401). Once the signature holds, protocol failures (bad JSON included) are JSON-RPC errors inside
 * 200, as in the gateway's own API. Notifications get 202 with no body.
 *
 * Replay refusal is per process (per isolate on Workers); the timestamp tolerance bounds the rest.
 */
export function toFetchHandler(hook: HookObject, options: FetchHandlerOptions): FetchHandler {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const verifier = createVerifier(Array.isArray(options.secret) ? options.secret : [options.secret], {
    toleranceSeconds: tolerance,
  });
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(maxBody) || maxBody <= 0) {
    throw new RangeError('maxBodyBytes must be a positive integer');
  }
  const replays = new ReplayCache(options.replayCacheSize ?? 100_000);
  const onError = options.onError ?? ((err, method) => console.error(`hook ${method} failed:`, err));

  return async (request) => {
    if (request.method !== 'POST') {
      return httpError(405, 'METHOD_NOT_ALLOWED', 'only POST is accepted', { allow: 'POST' });
    }
    const body = await readBody(request, maxBody);
    if (!body) return httpError(413, 'BODY_TOO_LARGE', `the body is larger than ${maxBody} bytes`);

    const now = Math.floor(Date.now() / 1000);
    const verified = await verifier.verify(request.headers, body, now);
    if (!verified.ok) return httpError(401, verified.code, verified.message);
    if (!replays.admit(verified.id, verified.timestamp + tolerance, now)) {
      return httpError(401, 'SIGNATURE_REPLAYED', 'this webhook-id was already delivered');
    }

    const parsed = parseMessage(new TextDecoder().decode(body));
    if (!parsed.ok) return json(parsed.response);
    const message = parsed.message;
    if (!isRequest(message) && !isNotification(message)) {
      return json(failure(null, ErrorCode.InvalidRequest, 'expected a request or a notification'));
    }
    const ctx = {
      method: message.method,
      tenant: request.headers.get(TENANT_HEADER) ?? '',
      hook: request.headers.get(HOOK_HEADER) ?? hook.name ?? '',
      signal: request.signal,
      traceparent: request.headers.get('traceparent') ?? undefined,
    };
    const reply = await dispatchToHook(hook, message.method, message.params, ctx);
    if (!isRequest(message)) {
      if (!reply.ok && reply.code !== ErrorCode.MethodNotFound) {
        onError(new Error(reply.message), message.method);
      }
      return new Response(null, { status: 202 });
    }
    try {
      return json(
        reply.ok ? success(message.id, reply.result) : failure(message.id, reply.code, reply.message),
      );
    } catch (err) {
      // e.g. a circular result that JSON cannot carry
      return json(failure(message.id, ErrorCode.InternalError, `result not serialisable: ${String(err)}`));
    }
  };
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: JSON_HEADERS });
}

function httpError(status: number, code: string, message: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

/** The body bytes, or undefined past the cap (checked on the header first, then while reading). */
async function readBody(request: Request, max: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > max) return undefined;
  return readCapped(request.body, max);
}

/**
 * Delivery ids seen while their signature could still verify. Insertion order is close to expiry
 * order (expiry = timestamp + tolerance), so expired ids are swept from the front; past the size
 * bound the oldest id, the nearest to expiry anyway, is forgotten first.
 */
class ReplayCache {
  private readonly seen = new Map<string, number>();

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max <= 0) {
      throw new RangeError('replayCacheSize must be a positive integer');
    }
  }

  /** Records `id`; false when it is already there and not expired. */
  admit(id: string, expiresAt: number, now: number): boolean {
    for (const [key, expiry] of this.seen) {
      if (expiry >= now) break;
      this.seen.delete(key);
    }
    const known = this.seen.get(id);
    if (known !== undefined && known >= now) return false;
    this.seen.delete(id);
    if (this.seen.size >= this.max) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(id, expiresAt);
    return true;
  }
}
