import type { Context } from 'hono';
import { httpError } from './errors.js';

const decoder = new TextDecoder();

/**
 * Reads a request body as text, refusing more than `max` bytes with 413. With a Content-Length
 * (the common case) the check is one header read and the body is read the runtime's fastest way;
 * hono's bodyLimit would instead build a full web Request with a stream on Node for every call.
 * A chunked body is read as a stream and cut off as soon as it passes the limit.
 */
export async function readBodyLimited(c: Context, max: number): Promise<string> {
  const tooLarge = () => httpError(413, 'payload_too_large', `message over ${max} bytes`);
  const length = c.req.header('content-length');
  if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
    if (Number(length) > max) throw tooLarge();
    return c.req.text();
  }
  const body = c.req.raw.body;
  if (!body) return '';
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  return decoder.decode(all);
}
