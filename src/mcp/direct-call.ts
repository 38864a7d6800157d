import { isJsonContentType, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { McpCallResult } from './call-result.js';

/** A 2025-era `tools/call` the route may answer without the SDK (see {@link plainToolCall}). */
export interface PlainToolCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
}

/** The 2025-era revisions a request may name in its header (the SDK accepts exactly these). */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments']);

/**
 * The POST when it is the hot path's plain shape, else undefined (the SDK then serves it): one
 * JSON-RPC `tools/call` request with nothing but `name` and an object of `arguments`, under headers
 * the SDK's stateless transport accepts, naming a 2025-era revision or none. Such a request is
 * legacy by the SDK's classification (no `_meta` envelope claim, no modern header), passes its
 * message and tools/call schemas, and is answered by the tools/call handler alone; anything the
 * least bit different (a batch, `_meta`, a progress token, a task, an unusual id, Mcp-Method
 * headers) goes the SDK's way, so no error answer is ever written here.
 */
export function plainToolCall(request: Request, body: unknown): PlainToolCall | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0') return undefined;
  const id = body.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  if (!hasOnlyKeys(body, REQUEST_KEYS)) return undefined;
  const params = body.params;
  if (!isPlainObject(params) || typeof params.name !== 'string' || !hasOnlyKeys(params, PARAMS_KEYS))
    return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const headers = request.headers;
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !LEGACY_VERSIONS.has(version)) return undefined;
  if (headers.get('mcp-method') !== null || headers.get('mcp-name') !== null) return undefined;
  return { id, name: params.name, args };
}

/**
 * The SDK's answer to a plain tools/call whose result is text only, written without it: the same
 * JSON-RPC response object in the same key order (`result`, `jsonrpc`, `id`; the result as its
 * schema orders it: `content`, then `isError`; each block `type`, `text`), status 200, JSON, and
 * the request's id (mcpService adds it to the SDK's answers too). A result with other content is
 * left to the SDK: its schema reorders and checks those blocks.
 */
export function textResultResponse(
  id: string | number,
  result: McpCallResult,
  requestId: string,
): Response | undefined {
  const content: { type: 'text'; text: string }[] = [];
  for (const block of result.content) {
    if (block.type !== 'text' || typeof block.text !== 'string') return undefined;
    content.push({ type: 'text', text: block.text });
  }
  const { isError } = result;
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  const encoded = isError === undefined ? { content } : { content, isError };
  return new Response(JSON.stringify({ result: encoded, jsonrpc: '2.0', id }), {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
  });
}

function hasOnlyKeys(o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
