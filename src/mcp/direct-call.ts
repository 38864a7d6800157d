import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { McpCallResult } from './call-result.js';

/** A `tools/call` the route may answer without the SDK (see {@link plainToolCall}). */
export interface PlainToolCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
  /** A 2026-07-28 request (its envelope checked by the SDK's own classifier), else 2025-era. */
  modern: boolean;
}

/** What the server says it is, in initialize, server/discover and every 2026-07-28 result. */
export const SERVER_INFO = { name: 'hookgate', version: '0.1.0' } as const;

const MODERN_VERSION = '2026-07-28';

/** The 2025-era revisions a request may name in its header (the SDK accepts exactly these). */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments']);
const MODERN_PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);

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
  if (!isPlainObject(params) || typeof params.name !== 'string') return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (params._meta !== undefined) return modernToolCall(request, body, id, params.name, args);
  if (!hasOnlyKeys(params, PARAMS_KEYS)) return undefined;
  const headers = request.headers;
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !LEGACY_VERSIONS.has(version)) return undefined;
  if (headers.get('mcp-method') !== null || headers.get('mcp-name') !== null) return undefined;
  return { id, name: params.name, args, modern: false };
}

/**
 * The 2026-07-28 form (Claude Code's): the same call with the `_meta` envelope, under the standard
 * headers mirroring the body exactly (MCP-Protocol-Version 2026-07-28, Mcp-Method tools/call,
 * Mcp-Name the tool's name, no whitespace or Base64 sentinel to decode). The envelope is judged by
 * the SDK's own classifier (once per distinct envelope, see servedEnvelopes); besides it `_meta`
 * may hold a string or integer `progressToken` (this server sends no progress) and anything else
 * (`claudecode/toolUseId`, a `traceparent`), which the SDK passes through. The modern handler would
 * classify, build, connect and close a server per request and validate the envelope, the request
 * and the result again with zod.
 */
function modernToolCall(
  request: Request,
  body: Record<string, unknown>,
  id: string | number,
  name: string,
  args: Record<string, unknown> | undefined,
): PlainToolCall | undefined {
  const params = body.params as Record<string, unknown>;
  if (!hasOnlyKeys(params, MODERN_PARAMS_KEYS)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_VERSION) return undefined;
  const progress = meta.progressToken;
  if (progress !== undefined && typeof progress !== 'string' && !Number.isSafeInteger(progress))
    return undefined;
  const headers = request.headers;
  if (!isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  const method = headers.get('mcp-method');
  const nameHeader = headers.get('mcp-name');
  if (version !== MODERN_VERSION || method !== 'tools/call' || nameHeader !== name) return undefined;
  if (name.trim() !== name || name.startsWith('=?')) return undefined;
  const key = envelopeKey(meta);
  if (!servedEnvelopes.has(key)) {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: version,
      mcpMethodHeader: method,
      mcpNameHeader: nameHeader,
      body,
    });
    if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
    if (route.classification.revision !== MODERN_VERSION) return undefined;
    if (servedEnvelopes.size >= MAX_ENVELOPES) servedEnvelopes.clear();
    servedEnvelopes.add(key);
  }
  return { id, name, args, modern: true };
}

/**
 * Envelopes the SDK's classifier accepted on a request of the shape checked above, by their text.
 * For such a request its verdict depends on nothing else: the headers and the body around the
 * envelope are fixed by those checks. A client sends the same envelope on every call of a session
 * (its identity and capabilities), and the classifier's zod was half of what a call cost here.
 * Bounded: emptied when full.
 */
const servedEnvelopes = new Set<string>();
const MAX_ENVELOPES = 1024;

/**
 * The envelope's text: the members the SDK's envelope schema judges (a loose object: every other
 * key of `_meta` passes through unjudged, and `progressToken`, which it also judges, is checked
 * above), in a fixed order. What changes per call (`progressToken`, `claudecode/toolUseId`, a
 * `traceparent`) is not in it, so one session's calls share one verdict.
 */
function envelopeKey(meta: Record<string, unknown>): string {
  let key = '';
  // `-` for an absent member: no JSON text, so it is told from any value (null included).
  for (const k of JUDGED_ENVELOPE_KEYS) key += `${k in meta ? JSON.stringify(meta[k]) : '-'},`;
  return key;
}

/** The SDK's reserved envelope members (its RESERVED_ENVELOPE_META_KEYS, not exported). */
const JUDGED_ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];

/**
 * The SDK's answer to a plain tools/call whose result is text only, written without it: the same
 * JSON-RPC response object in the same key order (`result`, `jsonrpc`, `id`; the result as its
 * schema orders it: `content`, then `isError`, then for 2026-07-28 `resultType` and the server's
 * identity in `_meta`; each block `type`, `text`), status 200, JSON, and
 * the request's id (mcpService adds it to the SDK's answers too). A result with other content is
 * left to the SDK: its schema reorders and checks those blocks.
 */
export function textResultResponse(
  call: PlainToolCall,
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
  const encoded: Record<string, unknown> = isError === undefined ? { content } : { content, isError };
  if (call.modern) {
    // The 2026-07-28 result's own members, as the SDK's codec stamps them.
    encoded.resultType = 'complete';
    encoded._meta = { [SERVER_INFO_META_KEY]: SERVER_INFO };
  }
  return new Response(JSON.stringify({ result: encoded, jsonrpc: '2.0', id: call.id }), {
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
