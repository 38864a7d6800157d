import { readGoObject } from '../lib/go-json-keys.js';
import type { Action } from '../protocol/methods.js';
import { isPlainObject } from './equal.js';
import { APPROVAL_RESULT, INTERCEPTOR_RESULTS } from './go-types.js';

/**
 * Reads a hook's raw result the way PicoClaw's json.Unmarshal would (src/lib/go-json-keys.ts): keys
 * match as Go matches them, a missing or null result is the zero value, and a value of the wrong
 * JSON type makes the whole result undecodable (which the gateway treats as a hook failure). Repeated
 * keys in the reply text never get here: the backends refuse such replies.
 */
export type Decoded<T> = { ok: true; value: T } | { ok: false; why: string };

export interface DecodedInterceptor {
  action: Action | string;
  reason?: string;
  request?: Record<string, unknown>;
  response?: Record<string, unknown>;
  call?: Record<string, unknown>;
  result?: Record<string, unknown>;
}

export interface DecodedApproval {
  approved: boolean;
  reason?: string;
}

const PAYLOAD_KEYS = ['request', 'response', 'call', 'result'] as const;

/**
 * Reads an interceptor's result as PicoClaw's Go decoder would (see go-types.ts): folded keys,
 * last one wins, nested objects the gateway passes on read the same way, wrong types and
 * ambiguous answers (one field given twice as an object) undecodable.
 */
export function decodeInterceptor(method: string, raw: unknown): Decoded<DecodedInterceptor> {
  if (raw === undefined || raw === null) return { ok: true, value: { action: 'continue' } };
  if (!isPlainObject(raw)) return { ok: false, why: 'result is not an object' };
  const struct = INTERCEPTOR_RESULTS.get(method);
  if (!struct) return { ok: true, value: { action: 'continue' } };
  const read = readGoObject(raw, struct);
  if (!read.ok) return read;
  const r = read.value;
  const action = (r.action as string | undefined) ?? '';
  const out: DecodedInterceptor = { action: action === '' ? 'continue' : action };
  if (typeof r.reason === 'string' && r.reason !== '') out.reason = r.reason;
  for (const key of PAYLOAD_KEYS) {
    if (r[key] !== undefined) out[key] = r[key] as Record<string, unknown>;
  }
  return { ok: true, value: out };
}

export function decodeApproval(raw: unknown): Decoded<DecodedApproval> {
  if (raw === undefined || raw === null) return { ok: true, value: { approved: false } };
  if (!isPlainObject(raw)) return { ok: false, why: 'result is not an object' };
  const read = readGoObject(raw, APPROVAL_RESULT);
  if (!read.ok) return read;
  const r = read.value;
  const out: DecodedApproval = { approved: r.approved === true };
  if (typeof r.reason === 'string' && r.reason !== '') out.reason = r.reason;
  return { ok: true, value: out };
}
