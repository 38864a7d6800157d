import {
  createMcpHandler,
  isLegacyRequest,
  type jsonSchemaValidator,
  type McpHttpHandler,
  type McpRequestContext,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { ErrorCode as HookgateCode } from '../protocol/jsonrpc.js';
import { callResult, type McpCallResult } from './call-result.js';
import { type PlainToolCall, plainToolCall, SERVER_INFO, textResultResponse } from './direct-call.js';
import { beforeToolParams } from './hook-params.js';
import type { InjectedToolsCache } from './injected-tools.js';
import type { McpHookPort } from './port.js';
import { type DefinitionSources, describeDefinitions, listTools } from './tool-list.js';

export interface McpLimited {
  limit: string;
  retryAfterMs: number;
}

/**
 * The answer to one MCP POST: the response, or — when the POST was a single request a limit
 * refused — the refusal, so the route can answer 429 with Retry-After as every other route does.
 */
export type McpAnswer = { response: Response } | { limited: McpLimited };

/** Serves the MCP POSTs of every hook behind one route; holds nothing about any caller. */
export interface McpService {
  /**
   * One POST (a JSON-RPC message or batch, already read and parsed) for the caller behind `port`;
   * the response carries `requestId` as x-request-id, as every answer of the gateway does.
   */
  serve(request: Request, body: unknown, port: McpHookPort, requestId: string): Promise<McpAnswer>;
  /** Aborts modern exchanges still in flight. */
  close(): Promise<void>;
}

/**
 * The SDK's schema validator is only for what a server asks a client (elicitation), which this
 * server never does; the default one would build an Ajv instance per server, and Ajv compiles
 * code at run time, which Workers forbid.
 */
const NO_VALIDATION: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'hookgate validates no schemas here',
  }),
};

const NONE = new Map();

/** One POST's caller and what its handlers found out (a limit that refused a call). */
interface Exchange {
  port: McpHookPort;
  requestId: string;
  limited?: McpLimited;
  /** The tools/call outcome serveToolCall already has: the server answers it instead of asking. */
  decided?: () => Promise<McpCallResult>;
}

/**
 * MCP with the SDK's v2 server, both protocol eras on one URL:
 *
 * - 2026-07-28 (a request carrying the `_meta` protocol-version envelope, e.g. the `server/discover`
 *   probe) goes to one `createMcpHandler` built here, once: it keeps nothing per caller, and asks
 *   the factory for a fresh `Server` per request, which finds its caller through the request.
 * - 2025-era traffic (initialize, then plain tools/list and tools/call; 2025-03-26 to 2025-11-25)
 *   is served statelessly by a fresh server on the SDK's Streamable HTTP transport with JSON
 *   answers. The handler's own stateless fallback would answer with SSE, which would send the
 *   200 before a limit could turn a single call into a 429.
 *
 * Both eras build their server with the same function, so they offer the same tools.
 */
/**
 * `direct: false` turns off the route's shortcuts past the SDK (the plain tools/call answer and the
 * envelope check before classifying): tests compare every answer with and without them.
 */
export function mcpService(injected: InjectedToolsCache, opts: { direct?: boolean } = {}): McpService {
  const direct = opts.direct ?? true;
  const exchanges = new WeakMap<Request, Exchange>();
  const modern: McpHttpHandler = createMcpHandler(
    (ctx: McpRequestContext) => {
      const exchange = ctx.requestInfo && exchanges.get(ctx.requestInfo);
      if (!exchange) throw new Error('MCP request served without its caller');
      return hookServer(exchange, injected, exchange.decided);
    },
    // Serves nothing of the 2025 era: serve() below routes that traffic itself.
    { legacy: 'reject' },
  );

  return {
    async serve(request, body, port, requestId) {
      const exchange: Exchange = { port, requestId };
      let response: Response;
      const plain = direct ? plainToolCall(request, body) : undefined;
      if (plain) {
        response = await serveToolCall(plain, exchange, (decided) => {
          if (!plain.modern) return serveLegacy(hookServer(exchange, injected, decided), request, body);
          exchange.decided = decided;
          exchanges.set(request, exchange);
          return modern.fetch(request, { parsedBody: body });
        });
      } else if (!(direct && claimsModern(body)) && (await isLegacyRequest(request, body))) {
        response = await serveLegacy(hookServer(exchange, injected), request, body);
      } else {
        exchanges.set(request, exchange);
        response = await modern.fetch(request, { parsedBody: body });
      }
      // Set on the response itself: a header added after the route returns (Hono's c.header) makes
      // the Node adapter rebuild the response around a stream. The direct answer has it already.
      if (!plain) response.headers.set('x-request-id', requestId);
      if (exchange.limited && !Array.isArray(body)) return { limited: exchange.limited };
      return { response };
    },
    close: () => modern.close(),
  };
}

/**
 * Whether a POST carries the 2026-07-28 envelope claim (`params._meta` naming a protocol version)
 * on anything but `initialize` or a posted response: the SDK never classifies such a message as
 * legacy (it is served or refused by the modern handler). The modern handler classifies every
 * request itself, validating the envelope with zod; asking isLegacyRequest first did all of that
 * twice for every Claude Code call.
 */
function claimsModern(body: unknown): boolean {
  if (!isPlainObject(body) || body.method === 'initialize' || 'result' in body || 'error' in body)
    return false;
  const params = body.params;
  if (!isPlainObject(params)) return false;
  const meta = params._meta;
  return isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A plain 2025-era tools/call (see plainToolCall), the route's hot path: the hook is asked first,
 * and a text-only result is written as the SDK would write it, without building, connecting and
 * closing a server and a transport, classifying the request for both eras and validating it and
 * the result with zod (5-7 times the CPU of a native call before). Any other outcome (media
 * content, an error the handler throws) is handed to the SDK as already decided, so it writes
 * those answers itself; the hook is never asked twice.
 */
async function serveToolCall(
  call: PlainToolCall,
  exchange: Exchange,
  bySdk: (decided: () => Promise<McpCallResult>) => Promise<Response>,
): Promise<Response> {
  let decided: () => Promise<McpCallResult>;
  try {
    const result = await callTool(exchange, call.name, call.args);
    const response = textResultResponse(call, result, exchange.requestId);
    if (response) return response;
    decided = async () => result;
  } catch (err) {
    decided = async () => {
      throw err;
    };
  }
  const response = await bySdk(decided);
  response.headers.set('x-request-id', exchange.requestId);
  return response;
}

/** A stateless transport serves a single request, so each 2025-era POST gets its own. */
async function serveLegacy(server: Server, request: Request, body: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}

/** Records a limit's refusal on the exchange and throws the JSON-RPC error the SDK answers with. */
function refuse(exchange: Exchange, l: McpLimited): never {
  exchange.limited ??= l;
  throw new ProtocolError(HookgateCode.Overloaded, `rate limited (${l.limit})`, {
    retry_after_ms: l.retryAfterMs,
  });
}

/** tools/call for one caller: the result, or the ProtocolError the SDK answers with. */
async function callTool(
  exchange: Exchange,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<McpCallResult> {
  const { port, requestId } = exchange;
  const params = beforeToolParams(name, args, requestId);
  if (!port.admits(params)) {
    // The same answer for a tool the hook lacks, one this token may not use and one whose
    // grant condition does not hold on these arguments.
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  const outcome = await port.beforeTool(params);
  if ('limited' in outcome) return refuse(exchange, outcome.limited);
  return callResult(port.hook, name, outcome.answer, outcome.failure);
}

/**
 * The hook's tools as a low-level SDK server, for one caller's request. `decided`: the tools/call
 * outcome already known (serveToolCall asked the hook), answered instead of asking again.
 */
function hookServer(
  exchange: Exchange,
  injected: InjectedToolsCache,
  decided?: () => Promise<McpCallResult>,
): Server {
  const { port, requestId } = exchange;

  const server = new Server(
    { ...SERVER_INFO },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: NO_VALIDATION },
  );
  server.setRequestHandler('tools/list', async () => {
    const sources: DefinitionSources = {
      configured: port.configured,
      declared: describeDefinitions(port.declared(), port.tools),
      injected: NONE,
    };
    const undescribed = [...port.tools].some((t) => !sources.configured.has(t) && !sources.declared.has(t));
    if (undescribed && port.injected) {
      const found = await injected.get(port.injected, port.injected.tools, requestId);
      if (!found.ok) return refuse(exchange, found.limited);
      sources.injected = found.tools;
    }
    return { tools: listTools(port.tools, sources) };
  });
  server.setRequestHandler('tools/call', (req) =>
    decided ? decided() : callTool(exchange, req.params.name, req.params.arguments),
  );
  return server;
}
