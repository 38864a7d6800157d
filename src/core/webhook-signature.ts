import { HookgateError } from '../lib/errors.js';

/**
 * Standard Webhooks (https://www.standardwebhooks.com) signing and verification with Web Crypto,
 * so the same code runs on Node and on Workers. A signature is
 * `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)); the key is the base64 part of a
 * `whsec_` secret. Several secrets (rotation) give several space-separated `v1,` entries.
 */

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
/** The spec asks for 24 to 64 random bytes; fewer is a configuration mistake worth failing on. */
const MIN_SECRET_BYTES = 24;
/** Bounds the work one forged header can cause (each entry is decoded and compared). */
const MAX_SIGNATURE_ENTRIES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const encoder = new TextEncoder();

export class WebhookSecretError extends HookgateError<'WEBHOOK_SECRET_INVALID'> {
  constructor(message: string) {
    super('WEBHOOK_SECRET_INVALID', message);
    this.name = 'WebhookSecretError';
  }
}

export type SignatureFailureCode =
  | 'SIGNATURE_MISSING'
  | 'SIGNATURE_INVALID'
  | 'TIMESTAMP_INVALID'
  | 'TIMESTAMP_STALE';

export type VerifyResult =
  | { ok: true; id: string; timestamp: number }
  | { ok: false; code: SignatureFailureCode; message: string };

/** A fetch `Headers`, or a plain record such as node:http's `IncomingHttpHeaders`. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;
export type WebhookBody = string | Uint8Array;

export interface WebhookSigner {
  /** The `webhook-signature` header value: one `v1,` entry per secret. */
  sign(id: string, timestampSeconds: number, body: WebhookBody): Promise<string>;
}

export interface WebhookVerifier {
  verify(headers: HeadersLike, body: WebhookBody, nowSeconds?: number): Promise<VerifyResult>;
}

/** Decodes a `whsec_…` secret to its key bytes; throws WebhookSecretError (never echoing the secret). */
export function parseWebhookSecret(secret: string): Uint8Array<ArrayBuffer> {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new WebhookSecretError(`a webhook secret must start with "${SECRET_PREFIX}" followed by base64`);
  }
  const b64 = secret.slice(SECRET_PREFIX.length);
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  if (BASE64.test(b64)) {
    try {
      bytes = fromBase64(b64);
    } catch {
      bytes = undefined;
    }
  }
  if (!bytes) throw new WebhookSecretError(`the part after "${SECRET_PREFIX}" is not valid base64`);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new WebhookSecretError(
      `a webhook secret must decode to at least ${MIN_SECRET_BYTES} bytes (got ${bytes.length})`,
    );
  }
  return bytes;
}

/**
 * Parses every secret now (bad configuration fails at construction) and imports each HMAC key
 * once, lazily, because importKey is async and signing is on the hot path.
 */
function keyRing(secrets: string[]): () => Promise<CryptoKey[]> {
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new WebhookSecretError('at least one webhook secret is required');
  }
  const raw = secrets.map(parseWebhookSecret);
  let keys: Promise<CryptoKey[]> | undefined;
  return () => {
    keys ??= Promise.all(
      raw.map((bytes) =>
        crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
      ),
    );
    return keys;
  };
}

export function createSigner(secrets: string[]): WebhookSigner {
  const keys = keyRing(secrets);
  return {
    async sign(id, timestampSeconds, body) {
      const content = signedContent(id, String(Math.floor(timestampSeconds)), body);
      const macs = await Promise.all((await keys()).map((k) => hmac(k, content)));
      return macs.map((mac) => `v1,${toBase64(mac)}`).join(' ');
    },
  };
}

export function createVerifier(
  secrets: string[],
  options: { toleranceSeconds?: number } = {},
): WebhookVerifier {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance <= 0) {
    throw new RangeError(`toleranceSeconds must be a positive number (got ${tolerance})`);
  }
  const keys = keyRing(secrets);
  return {
    async verify(headers, body, nowSeconds = Math.floor(Date.now() / 1000)) {
      const id = header(headers, WEBHOOK_ID_HEADER);
      const ts = header(headers, WEBHOOK_TIMESTAMP_HEADER);
      const sig = header(headers, WEBHOOK_SIGNATURE_HEADER);
      if (!id || !ts || !sig) {
        return fail('SIGNATURE_MISSING', 'webhook-id, webhook-timestamp and webhook-signature are required');
      }
      // Cheap checks before any HMAC work.
      if (!/^\d{1,15}$/.test(ts)) return fail('TIMESTAMP_INVALID', 'webhook-timestamp must be unix seconds');
      const timestamp = Number(ts);
      if (Math.abs(nowSeconds - timestamp) > tolerance) {
        return fail('TIMESTAMP_STALE', `webhook-timestamp is more than ${tolerance} s away from now`);
      }
      const candidates = candidateSignatures(sig);
      if (candidates.length === 0) return fail('SIGNATURE_INVALID', 'no v1 signature in webhook-signature');
      const content = signedContent(id, ts, body);
      for (const key of await keys()) {
        const expected = await hmac(key, content);
        if (candidates.some((c) => constantTimeEqual(c, expected))) return { ok: true, id, timestamp };
      }
      return fail('SIGNATURE_INVALID', 'no signature matches');
    },
  };
}

/** A fresh delivery id; 16 random bytes are plenty for replay detection. */
export function newWebhookId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'msg_' + toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fail(code: SignatureFailureCode, message: string): VerifyResult {
  return { ok: false, code, message };
}

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The decoded bytes of every well-formed `v1,` entry; other versions and garbage are ignored. */
function candidateSignatures(headerValue: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const entry of headerValue.split(' ').slice(0, MAX_SIGNATURE_ENTRIES)) {
    if (!entry.startsWith('v1,')) continue;
    const b64 = entry.slice(3);
    if (!BASE64.test(b64)) continue;
    try {
      out.push(fromBase64(b64));
    } catch {
      // not base64 after all: ignore this entry
    }
  }
  return out;
}

function signedContent(id: string, timestamp: string, body: WebhookBody): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return encoder.encode(`${id}.${timestamp}.${body}`);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

async function hmac(key: CryptoKey, content: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, content));
}

/** Time depends only on the lengths, which are public (32 bytes for SHA-256). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s);
}

function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
