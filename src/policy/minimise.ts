import { Method } from '../protocol/methods.js';
import { isPlainObject } from './equal.js';

/**
 * Data minimisation: without `conversation_access` no conversation text leaves the gateway.
 * Structure, roles, model, options and tool definitions still go, so a hook can still inject
 * tools or decide on shape; the withheld strings are sent empty. Returns new objects where it
 * changes something and shares the rest (callers never mutate either).
 */
export function minimiseParams(method: string, params: unknown): unknown {
  if (!isPlainObject(params)) return params;
  if (method === Method.BeforeLlm && Array.isArray(params.messages)) {
    return { ...params, messages: params.messages.map(minimiseMessage) };
  }
  if (method === Method.AfterLlm && isPlainObject(params.response)) {
    return { ...params, response: minimiseLlmResponse(params.response) };
  }
  return params;
}

function minimiseMessage(m: unknown): unknown {
  if (!isPlainObject(m)) return m;
  const out: Record<string, unknown> = { ...m, content: '' };
  delete out.reasoning_content;
  delete out.media;
  delete out.attachments;
  if (Array.isArray(m.system_parts)) {
    out.system_parts = m.system_parts.map((p) => (isPlainObject(p) ? { ...p, text: '' } : p));
  }
  if (Array.isArray(m.tool_calls)) out.tool_calls = m.tool_calls.map(minimiseToolCall);
  return out;
}

function minimiseToolCall(tc: unknown): unknown {
  if (!isPlainObject(tc) || !isPlainObject(tc.function)) return tc;
  return { ...tc, function: { ...tc.function, arguments: '' } };
}

function minimiseLlmResponse(r: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r, content: '' };
  if ('reasoning_content' in out) delete out.reasoning_content;
  if ('reasoning' in out) out.reasoning = '';
  if ('reasoning_details' in out) out.reasoning_details = null;
  if (Array.isArray(r.tool_calls)) out.tool_calls = r.tool_calls.map(minimiseToolCall);
  return out;
}
