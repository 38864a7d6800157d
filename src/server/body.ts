import type { Context } from 'hono';
import { readCapped } from '../core/read-capped.js';
import type { AdmittedCall } from './call-request.js';
import { httpError } from './errors.js';

const decoder = new TextDecoder();

/**
 * Reads a request body as text, refusing more than `max` bytes with 413. With a Content-Length
 * (the common case) the check is one header read and the body is read the runtime's fastest way;
 * hono's bodyLimit would instead build a full web Request with a stream on Node for every call.
 * A chunked body is read as a stream and cut off as soon as it passes the limit.
 */
export function readBodyLimited(c: Context, max: number): Promise<string> {
  const length = c.req.header('content-length');
  if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
    // Not an async function: on the path of every call, it would add a promise and a turn of its own.
    if (Number(length) > max) return Promise.reject(tooLarge(max));
    return c.req.text();
  }
  return readStreamed(c, max);
}

/** A body without a Content-Length (chunked): read as a stream, cut off once it passes `max`. */
async function readStreamed(c: Context, max: number): Promise<string> {
  const bytes = await readCapped(c.req.raw.body, max);
  if (bytes === undefined) throw tooLarge(max);
  return decoder.decode(bytes);
}

/**
 * A host dialect's body: read as readBodyLimited does and parsed, or 400 `bad_request` when it is
 * not JSON (the host's own failure setting then decides). One place for every dialect route.
 */
export async function readJsonBody(call: AdmittedCall): Promise<unknown> {
  const text = await call.text();
  try {
    return JSON.parse(text);
  } catch {
    throw httpError(400, 'bad_request', 'body is not valid JSON');
  }
}

/** The rest of the body is never read, so this connection cannot carry another request. */
function tooLarge(max: number) {
  return httpError(413, 'payload_too_large', `message over ${max} bytes`, { connection: 'close' });
}
