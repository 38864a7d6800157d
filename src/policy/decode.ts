import { type Action, Method } from '../protocol/methods.js';
import { isPlainObject } from './equal.js';

/**
 * Reads a hook's raw result the way PicoClaw's json.Unmarshal would: keys match case-insensitively,
 * a missing or null result is the zero value, and a value of the wrong JSON type makes the whole
 * result undecodable (which the gateway treats as a hook failure).
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

const PAYLOAD_KEY: Record<string, readonly string[]> = {
  [Method.BeforeLlm]: ['request'],
  [Method.AfterLlm]: ['response'],
  [Method.BeforeTool]: ['call', 'result'],
  [Method.AfterTool]: ['result'],
};

function lowerKeys(v: Record<string, unknown>): Record<string, unknown> {
  for (const k in v) {
    if (k !== k.toLowerCase()) {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(v)) out[key.toLowerCase()] = value;
      return out;
    }
  }
  return v;
}

export function decodeInterceptor(method: string, raw: unknown): Decoded<DecodedInterceptor> {
  if (raw === undefined || raw === null) return { ok: true, value: { action: 'continue' } };
  if (!isPlainObject(raw)) return { ok: false, why: 'result is not an object' };
  const r = lowerKeys(raw);
  const action = r.action ?? '';
  if (typeof action !== 'string') return { ok: false, why: 'action is not a string' };
  if (r.reason !== undefined && r.reason !== null && typeof r.reason !== 'string') {
    return { ok: false, why: 'reason is not a string' };
  }
  const out: DecodedInterceptor = { action: action === '' ? 'continue' : action };
  if (typeof r.reason === 'string' && r.reason !== '') out.reason = r.reason;
  for (const key of Object.hasOwn(PAYLOAD_KEY, method) ? PAYLOAD_KEY[method] : []) {
    const v = r[key];
    if (v === undefined || v === null) continue;
    if (!isPlainObject(v)) return { ok: false, why: `${key} is not an object` };
    (out as unknown as Record<string, unknown>)[key] = v;
  }
  return { ok: true, value: out };
}

export function decodeApproval(raw: unknown): Decoded<DecodedApproval> {
  if (raw === undefined || raw === null) return { ok: true, value: { approved: false } };
  if (!isPlainObject(raw)) return { ok: false, why: 'result is not an object' };
  const r = lowerKeys(raw);
  if (r.approved !== undefined && r.approved !== null && typeof r.approved !== 'boolean') {
    return { ok: false, why: 'approved is not a boolean' };
  }
  if (r.reason !== undefined && r.reason !== null && typeof r.reason !== 'string') {
    return { ok: false, why: 'reason is not a string' };
  }
  const out: DecodedApproval = { approved: r.approved === true };
  if (typeof r.reason === 'string' && r.reason !== '') out.reason = r.reason;
  return { ok: true, value: out };
}

const TOOL_RESULT_TYPES: Record<string, 'string' | 'boolean' | 'string[]'> = {
  for_llm: 'string',
  for_user: 'string',
  silent: 'boolean',
  is_error: 'boolean',
  async: 'boolean',
  response_handled: 'boolean',
  media: 'string[]',
  artifact_tags: 'string[]',
};

/** A ToolResult with a wrongly typed field would fail PicoClaw's decode of the whole answer. */
export function checkToolResult(v: Record<string, unknown>): string | undefined {
  for (const k in v) {
    if (!Object.hasOwn(TOOL_RESULT_TYPES, k)) continue;
    const type = TOOL_RESULT_TYPES[k];
    const x = v[k];
    if (x === undefined || x === null) continue;
    if (type === 'string[]') {
      if (!Array.isArray(x) || x.some((e) => typeof e !== 'string'))
        return `result.${k} is not a list of strings`;
    } else if (typeof x !== type) {
      return `result.${k} is not a ${type}`;
    }
  }
  return undefined;
}
