import { foldFieldName, GoStruct, readGoObject } from '../lib/go-json-keys.js';
import { Method } from '../protocol/methods.js';

/**
 * Turns the gateway's result into the exact object PicoClaw will read. PicoClaw decodes with Go's
 * encoding/json (src/lib/go-json-keys.ts): keys match case-insensitively, the last one wins, `null`
 * leaves a string or boolean as it was but clears an object, unknown keys are ignored and a wrong
 * type fails the whole result. The bridge rebuilds the answer from the
 * keys Go would see, under their canonical names, so what the bridge checks (`approved`, a `respond`)
 * is exactly what PicoClaw acts on; `{"Action":"respond"}` cannot slip past a lower-case check.
 */

/**
 * The top level of each result struct PicoClaw decodes (processHook…Response, ApprovalDecision).
 * Nested payloads are passed on as the gateway sent them: PicoClaw reads them itself.
 */
const RESULTS: ReadonlyMap<string, GoStruct> = new Map([
  [Method.BeforeLlm, new GoStruct({ action: 'string', reason: 'string', request: 'pointer' })],
  [Method.AfterLlm, new GoStruct({ action: 'string', reason: 'string', response: 'pointer' })],
  [
    Method.BeforeTool,
    new GoStruct({ action: 'string', reason: 'string', call: 'pointer', result: 'pointer' }),
  ],
  [Method.AfterTool, new GoStruct({ action: 'string', reason: 'string', result: 'pointer' })],
  [Method.ApproveTool, new GoStruct({ approved: 'bool', reason: 'string' })],
]);

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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The fields Go would decode, under their names (src/lib/go-json-keys.ts: keys that are already
 * field names, nearly all of them, are found without folding); unknown keys go.
 */
function canonical(
  result: Record<string, unknown>,
  struct: GoStruct,
): { ok: true; out: Record<string, unknown> } | { ok: false; why: string } {
  const read = readGoObject(result, struct, { unknownKeys: 'drop' });
  return read.ok ? { ok: true, out: read.value } : read;
}

export function shapeResult(method: string, result: unknown, ctx: ShapeContext): Shaped {
  const struct = RESULTS.get(method);
  // A method the bridge does not know is passed on untouched: the host asked the gateway, not us.
  if (struct === undefined) return { kind: 'ok', answer: result };

  if (method === Method.ApproveTool) {
    // Anything but an explicit boolean is a denial, as in PicoClaw; the bridge says so explicitly.
    const read = isObject(result) ? canonical(result, struct) : { ok: true as const, out: {} };
    if (!read.ok) return { kind: 'bad', why: `gateway answer: ${read.why}` };
    const out = read.out;
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
  const read = canonical(result, struct);
  if (!read.ok) return { kind: 'bad', why: `gateway result: ${read.why}` };
  const out = read.out;

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
    rest.call = Object.fromEntries(
      Object.entries(rest.call).filter(([k]) => foldFieldName(k) !== 'hook_result'),
    );
  }
  return {
    kind: 'refused',
    answer: rest,
    why: `tool result for ${JSON.stringify(ctx.tool)} removed (--allow-respond)`,
  };
}

function hasHookResult(call: Record<string, unknown>): boolean {
  return Object.keys(call).some((k) => foldFieldName(k) === 'hook_result');
}
