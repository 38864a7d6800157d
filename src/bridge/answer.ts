import { Method } from '../protocol/methods.js';

/**
 * Turns the gateway's result into the exact object PicoClaw will read. PicoClaw decodes with Go's
 * encoding/json: keys match case-insensitively (the last one wins, `null` changes nothing), unknown
 * keys are ignored and a wrong type fails the whole result. The bridge rebuilds the answer from the
 * keys Go would see, under their canonical names, so what the bridge checks (`approved`, a `respond`)
 * is exactly what PicoClaw acts on; `{"Action":"respond"}` cannot slip past a lower-case check.
 */

const FIELDS: Record<string, readonly string[]> = {
  [Method.BeforeLlm]: ['action', 'reason', 'request'],
  [Method.AfterLlm]: ['action', 'reason', 'response'],
  [Method.BeforeTool]: ['action', 'reason', 'call', 'result'],
  [Method.AfterTool]: ['action', 'reason', 'result'],
  [Method.ApproveTool]: ['approved', 'reason'],
};

export type Shaped =
  | { kind: 'ok'; answer: unknown }
  /** The gateway's answer is one PicoClaw could not use: answer by the failure mode. */
  | { kind: 'bad'; why: string }
  /** The bridge's own rule replaced the answer (--allow-respond). */
  | { kind: 'refused'; answer: unknown; why: string };

export interface ShapeContext {
  allowRespond?: readonly string[];
  /** The tool named in the host's before_tool request; a respond stands in for this tool. */
  tool?: unknown;
}

/** Go's case folding for ASCII field names: also `ſ` (U+017F) ≡ s and `K` (U+212A) ≡ k. */
function fold(key: string): string {
  return key.replace(/\u017f/g, 's').toLowerCase();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The fields Go would decode, under canonical names, in first-seen order; null is "not there". */
function canonical(result: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (value === null) continue;
    // Keys are nearly always canonical already; fold only the ones that are not.
    const name = fields.includes(key) ? key : foldedField(key, fields);
    if (name !== undefined) out[name] = value;
  }
  return out;
}

function foldedField(key: string, fields: readonly string[]): string | undefined {
  const folded = fold(key);
  return fields.find((f) => f === folded);
}

function wrongType(out: Record<string, unknown>): string | undefined {
  for (const [k, v] of Object.entries(out)) {
    if ((k === 'action' || k === 'reason') && typeof v !== 'string') return `"${k}" is not a string`;
    if (k === 'approved' && typeof v !== 'boolean') return '"approved" is not a boolean';
    if (['request', 'response', 'call', 'result'].includes(k) && !isObject(v))
      return `"${k}" is not an object`;
  }
  return undefined;
}

export function shapeResult(method: string, result: unknown, ctx: ShapeContext): Shaped {
  const fields = Object.hasOwn(FIELDS, method) ? FIELDS[method] : undefined;
  // A method the bridge does not know is passed on untouched: the host asked the gateway, not us.
  if (fields === undefined) return { kind: 'ok', answer: result };

  if (method === Method.ApproveTool) {
    // Anything but an explicit boolean is a denial, as in PicoClaw; the bridge says so explicitly.
    const out = isObject(result) ? canonical(result, fields) : {};
    if (typeof out.approved !== 'boolean')
      return { kind: 'bad', why: 'gateway answer has no boolean "approved"' };
    return {
      kind: 'ok',
      answer:
        typeof out.reason === 'string'
          ? { approved: out.approved, reason: out.reason }
          : { approved: out.approved },
    };
  }

  // A null result is PicoClaw's zero value: continue. Any other non-object fails to decode there.
  if (result === null || result === undefined) return { kind: 'ok', answer: { action: 'continue' } };
  if (!isObject(result)) return { kind: 'bad', why: 'gateway result is not an object' };
  const out = canonical(result, fields);
  const bad = wrongType(out);
  if (bad !== undefined) return { kind: 'bad', why: `gateway result: ${bad}` };

  if (method === Method.BeforeTool && ctx.allowRespond !== undefined) return checkRespond(out, ctx);
  return { kind: 'ok', answer: out };
}

/**
 * Defence in depth for the approval bypass: a before_tool `respond` skips approve_tool and after_tool,
 * so a gateway that faked the result of `exec` would run nothing and approve everything. The bridge
 * allows it only for tools the operator listed, and strips a result smuggled into a non-respond answer
 * (a later hook's bare respond would pick it up from `call.hook_result`).
 */
function checkRespond(out: Record<string, unknown>, ctx: ShapeContext): Shaped {
  const allowed = typeof ctx.tool === 'string' && (ctx.allowRespond ?? []).includes(ctx.tool);
  if (allowed) return { kind: 'ok', answer: out };
  const action = typeof out.action === 'string' ? out.action.trim().toLowerCase() : '';
  if (action === 'respond') {
    return {
      kind: 'refused',
      answer: { action: 'continue' },
      why: `respond for tool ${JSON.stringify(ctx.tool)} is not in --allow-respond`,
    };
  }
  if (out.result === undefined && !(isObject(out.call) && hasHookResult(out.call)))
    return { kind: 'ok', answer: out };
  const { result: _dropped, ...rest } = out;
  if (isObject(rest.call)) {
    rest.call = Object.fromEntries(Object.entries(rest.call).filter(([k]) => fold(k) !== 'hook_result'));
  }
  return {
    kind: 'refused',
    answer: rest,
    why: `tool result for ${JSON.stringify(ctx.tool)} removed (--allow-respond)`,
  };
}

function hasHookResult(call: Record<string, unknown>): boolean {
  return Object.keys(call).some((k) => fold(k) === 'hook_result');
}
