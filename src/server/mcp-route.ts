import type { Context } from 'hono';
import type { Principal } from '../auth/principal.js';
import type { HookRuntime } from '../config/runtime.js';
import { countArrayElements } from '../core/json-array-count.js';
import { Refusal } from '../limits/types.js';
import { InjectedToolsCache } from '../mcp/injected-tools.js';
import type { HookCallOutcome, McpHookPort } from '../mcp/port.js';
import type { McpService } from '../mcp/server.js';
import { servedTools } from '../mcp/tool-list.js';
import { Method } from '../protocol/methods.js';
import type { AuthVariables } from './auth.js';
import { readBodyLimited } from './body.js';
import { httpError, rateLimited } from './errors.js';
import type { CallObserver, Gateway } from './gateway.js';
import type { Metrics } from './metrics.js';
import { messageTraceparent } from './tracing/message-traceparent.js';

/** `idSent`: the response carries x-request-id already (app.ts then leaves it alone). */
type McpContext = Context<{ Variables: AuthVariables & { idSent?: boolean } }>;

export interface McpRouteDeps {
  gateway: Gateway;
  metrics: Metrics;
  maxBodyBytes: number;
}

/** The most messages one JSON-RPC batch may hold: the MCP SDK's own bound (MAX_BATCH_SIZE). */
export const MAX_BATCH = 100;

/** The audit lines' `dialect` for calls that came in as MCP tool calls. */
const MCP = 'mcp';

/**
 * JSON-RPC methods counted by name in hookgate_mcp_requests_total; anything else is `other`.
 * `initialize` opens a 2025-era client's session, `server/discover` a 2026-07-28 one's.
 */
const COUNTED = new Set(['initialize', 'server/discover', 'ping', 'tools/list', 'tools/call']);

/**
 * POST /v1/tenants/{tenant}/hooks/{hook}/mcp: the hook's tools as an MCP server (src/mcp), after
 * the same authentication as every route (the caller mounts requireHookAccess first). This file
 * only adapts: it gives the MCP code a port onto the gateway's call path for this caller, and
 * answers a single call a limit refused with 429 and Retry-After, as the hook-protocol route does.
 */
export function mcpRoute(deps: McpRouteDeps) {
  const { gateway, metrics, maxBodyBytes } = deps;
  // Built once, on the first MCP POST: it holds nothing about any caller (each POST brings its own
  // port). The MCP SDK is imported then, not at start: a gateway whose hooks are never called over
  // MCP does not carry its ~5 MB of heap (marked at every full GC) or its ~100 ms of start-up.
  let mcp: Promise<McpService> | undefined;
  const service = (): Promise<McpService> => {
    mcp ??= import('../mcp/server.js').then(
      (m) => m.mcpService(new InjectedToolsCache()),
      (err: unknown) => {
        mcp = undefined; // not kept: the next POST tries again
        throw err;
      },
    );
    return mcp;
  };

  return {
    async post(c: McpContext): Promise<Response> {
      if (gateway.draining) throw httpError(503, 'unavailable', 'gateway is shutting down');
      const text = await readBodyLimited(c, maxBodyBytes);
      // The SDK refuses a larger batch too, but only after the whole body is parsed and (here)
      // every element counted: for a few MB of small elements that blocks every tenant.
      if ((countArrayElements(text, MAX_BATCH) ?? 0) > MAX_BATCH) {
        return c.json(
          {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: `Invalid Request: Batch must not exceed ${MAX_BATCH} messages` },
          },
          400,
        );
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return c.json(
          { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' } },
          400,
        );
      }
      const hook = c.get('hook');
      countRequests(metrics, hook, body);
      let refusal: Refusal | undefined;
      // A single request's trace context (MCP's SEP-414 `params._meta.traceparent`), else the header's.
      const traceparent = messageTraceparent(body) ?? c.req.header('traceparent');
      const port = hookPort(
        gateway,
        c.get('principal'),
        hook,
        c.get('requestId'),
        (r) => {
          refusal ??= r;
        },
        traceparent,
      );
      const answer = await (await service()).serve(c.req.raw, body, port, c.get('requestId'));
      if ('limited' in answer)
        throw rateLimited(refusal ?? new Refusal('hook_rate', answer.limited.retryAfterMs));
      c.set('idSent', true);
      return answer.response;
    },

    /** Stateless: no SSE stream to open (GET) and no session to end (DELETE). */
    notAllowed(c: McpContext): Response {
      return c.json(
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST' },
        },
        405,
        { allow: 'POST' },
      );
    },
  };
}

function hookPort(
  gateway: Gateway,
  principal: Principal,
  hook: HookRuntime,
  requestId: string,
  onRefusal: (r: Refusal) => void,
  traceparent?: string,
): McpHookPort {
  const backend = gateway.backendOf(hook);
  // Tool discovery is about the hook, not the caller: asked under the hook's own tools, and kept.
  const asHook: Principal = { ...principal, tools: undefined };
  const tools = servedTools(gateway.policyFor(principal, hook).tools);
  const origin = { dialect: MCP, requestId, traceparent };
  return {
    hook: hook.name,
    tools,
    configured: hook.toolDefinitions,
    declared: () => backend?.declaredTools?.(),
    injected:
      backend && hook.modes.has('llm')
        ? {
            key: backend,
            starts: backend.starts?.() ?? 0,
            tools: hook.tools,
            ask: (params) =>
              viaGateway(
                (observer) =>
                  gateway.invoke(asHook, hook, Method.BeforeLlm, params, {
                    dialect: MCP,
                    requestId,
                    traceparent,
                    observer,
                  }),
                onRefusal,
              ),
          }
        : undefined,
    beforeTool: (params) =>
      viaGateway(
        (observer) => gateway.invoke(principal, hook, Method.BeforeTool, params, { ...origin, observer }),
        onRefusal,
      ),
    admits(params) {
      // A tool this route does not serve (see servedTools) is refused as one the caller lacks.
      const tool = String(params.tool);
      if (tools.has(tool))
        return gateway.admitsToolCall(principal, hook, params, 'error:unknown_tool', origin);
      gateway.refuseTool(principal, hook, Method.BeforeTool, tool, 'error:unknown_tool', origin);
      return false;
    },
  };
}

async function viaGateway(
  run: (observer: CallObserver) => Promise<Record<string, unknown> | Refusal>,
  onRefusal: (r: Refusal) => void,
): Promise<HookCallOutcome> {
  let failure: string | undefined;
  const result = await run({
    failed(why) {
      failure = why;
    },
  });
  if (result instanceof Refusal) {
    onRefusal(result);
    return { limited: { limit: result.limit, retryAfterMs: result.retryAfterMs } };
  }
  return failure === undefined ? { answer: result } : { answer: result, failure };
}

function countRequests(metrics: Metrics, hook: HookRuntime, body: unknown): void {
  for (const msg of Array.isArray(body) ? body : [body]) {
    const method = (msg as { method?: unknown } | null)?.method;
    const name =
      typeof method !== 'string'
        ? 'response'
        : COUNTED.has(method)
          ? method
          : method.startsWith('notifications/')
            ? 'notification'
            : 'other';
    metrics.inc('hookgate_mcp_requests_total', { tenant: hook.tenant, hook: hook.name, method: name });
  }
}
