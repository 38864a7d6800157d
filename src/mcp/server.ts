import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode as HookgateCode } from '../protocol/jsonrpc.js';
import { callResult } from './call-result.js';
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

/**
 * The SDK's schema validator is only for what a server asks a client (elicitation), which this
 * server never does; the default one would build an Ajv instance per request, and Ajv compiles
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

/**
 * Serves one MCP POST (a JSON-RPC message or batch, already read and parsed) for one hook, with
 * the SDK's web-standard Streamable HTTP transport: stateless (no session), JSON answers (no SSE).
 * A stateless transport serves a single request, so each POST gets its own server and transport.
 */
export async function serveMcp(
  request: Request,
  body: unknown,
  port: McpHookPort,
  injected: InjectedToolsCache,
  requestId: string,
): Promise<McpAnswer> {
  let limited: McpLimited | undefined;
  const refuse = (l: McpLimited): never => {
    limited ??= l;
    throw new McpError(HookgateCode.Overloaded, `rate limited (${l.limit})`, {
      retry_after_ms: l.retryAfterMs,
    });
  };

  const server = new Server(
    { name: 'hookgate', version: '0.1.0' },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: NO_VALIDATION },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const sources: DefinitionSources = {
      configured: port.configured,
      declared: describeDefinitions(port.declared(), port.tools),
      injected: NONE,
    };
    const undescribed = [...port.tools].some((t) => !sources.configured.has(t) && !sources.declared.has(t));
    if (undescribed && port.injected) {
      const found = await injected.get(port.injected, port.injected.tools, requestId);
      if (!found.ok) return refuse(found.limited);
      sources.injected = found.tools;
    }
    return { tools: listTools(port.tools, sources) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: args } = req.params;
    if (!port.tools.has(name)) {
      port.refused(name);
      // The same answer for a tool the hook lacks and one this token may not use.
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    const outcome = await port.beforeTool(beforeToolParams(name, args, requestId));
    if ('limited' in outcome) return refuse(outcome.limited);
    return callResult(port.hook, name, outcome.answer, outcome.failure);
  });

  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: body });
    if (limited && !Array.isArray(body)) return { limited };
    return { response };
  } finally {
    await server.close();
  }
}
