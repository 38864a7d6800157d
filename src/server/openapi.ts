import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';

/**
 * The HTTP surface as @hono/zod-openapi route definitions. The handlers live in app.ts and parse
 * bodies themselves (a malformed JSON-RPC body must get a JSON-RPC error, not a 400 from a
 * validator); these definitions are the single source of openapi/openapi.json.
 */

const HookParams = z.object({
  tenant: z.string().openapi({ param: { name: 'tenant', in: 'path' }, example: 'demo' }),
  hook: z.string().openapi({ param: { name: 'hook', in: 'path' }, example: 'weather' }),
});

const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).openapi('Error');

const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.number(), z.string()]).optional().openapi({ description: 'absent for notifications' }),
    method: z.string().openapi({
      example: 'hook.before_tool',
      description:
        'hook.hello, hook.before_llm, hook.after_llm, hook.before_tool, hook.after_tool, hook.approve_tool, hook.runtime_event (or the older hook.event)',
    }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('JsonRpcMessage');

const JsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.number(), z.string(), z.null()]),
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi('JsonRpcResponse');

const HookDescription = z
  .object({
    tenant: z.string(),
    hook: z.string(),
    protocol_version: z.number().int(),
    modes: z.array(z.enum(['observe', 'llm', 'tool', 'approve'])),
    tools: z.array(z.string()),
    grants: z.record(z.string(), z.unknown()),
    on_violation: z.enum(['strip', 'deny']),
    on_failure: z.enum(['open', 'closed']),
    timeout_ms: z.number().int(),
    approval_timeout_ms: z.number().int(),
    limits: z.object({ max_body_bytes: z.number().int(), max_in_flight: z.number().int() }),
    backend: z.object({ type: z.enum(['stdio', 'module', 'http']), ready: z.boolean() }),
  })
  .openapi('HookDescription');

const authErrors = {
  401: {
    description: 'Missing or invalid token (WWW-Authenticate: Bearer)',
    content: { 'application/json': { schema: ErrorBody } },
  },
  403: {
    description: 'Token valid, but not for this tenant or hook',
    content: { 'application/json': { schema: ErrorBody } },
  },
  404: { description: 'The tenant has no such hook', content: { 'application/json': { schema: ErrorBody } } },
};

export const routes = {
  call: createRoute({
    operationId: 'callHook',
    method: 'post',
    path: '/v1/tenants/{tenant}/hooks/{hook}',
    summary: 'Send one JSON-RPC message to a hook',
    security: [{ bearer: [] }],
    request: {
      params: HookParams,
      body: { required: true, content: { 'application/json': { schema: JsonRpcMessage } } },
    },
    responses: {
      200: {
        description: 'The JSON-RPC response, after policy',
        content: { 'application/json': { schema: JsonRpcResponse } },
      },
      202: { description: 'A notification was accepted' },
      ...authErrors,
      413: {
        description: 'Message over server.max_body_bytes',
        content: { 'application/json': { schema: ErrorBody } },
      },
      429: {
        description:
          'A call over a tenant or hook limit (rate or calls in flight); Retry-After says when to try again. Notifications over a limit are dropped and still answered 202.',
        headers: z.object({
          'retry-after': z.string().openapi({ description: 'Whole seconds, at least 1' }),
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  }),
  describe: createRoute({
    operationId: 'describeHook',
    method: 'get',
    path: '/v1/tenants/{tenant}/hooks/{hook}',
    summary: 'Describe a hook: protocol version, modes, tools, limits, failure modes',
    security: [{ bearer: [] }],
    request: { params: HookParams },
    responses: {
      200: { description: 'The hook', content: { 'application/json': { schema: HookDescription } } },
      ...authErrors,
    },
  }),
  ws: createRoute({
    operationId: 'connectHookWebSocket',
    method: 'get',
    path: '/v1/tenants/{tenant}/hooks/{hook}/ws',
    summary: 'WebSocket upgrade: multiplexed JSON-RPC, one message per text frame',
    description:
      'Token in Authorization, or as a Sec-WebSocket-Protocol entry "bearer.<token>" next to "hookgate.v1". Closed with 1008 "token expired" when the token expires.',
    security: [{ bearer: [] }],
    request: { params: HookParams },
    responses: {
      101: { description: 'Switching protocols' },
      ...authErrors,
      426: { description: 'Not a WebSocket upgrade' },
    },
  }),
  healthz: createRoute({
    operationId: 'healthz',
    security: [],
    method: 'get',
    path: '/healthz',
    summary: 'Liveness',
    responses: {
      200: {
        description: 'The process is up',
        content: { 'application/json': { schema: z.object({ ok: z.boolean() }) } },
      },
    },
  }),
  readyz: createRoute({
    operationId: 'readyz',
    security: [],
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: every hook backend can serve',
    responses: {
      200: {
        description: 'Ready',
        content: {
          'application/json': { schema: z.object({ ready: z.boolean(), not_ready: z.array(z.string()) }) },
        },
      },
      503: {
        description: 'Some backends are not ready',
        content: {
          'application/json': { schema: z.object({ ready: z.boolean(), not_ready: z.array(z.string()) }) },
        },
      },
    },
  }),
  metrics: createRoute({
    operationId: 'metrics',
    security: [],
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    responses: {
      200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } },
    },
  }),
};

export function buildOpenApiDocument(): Record<string, unknown> {
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  for (const r of Object.values(routes)) app.openAPIRegistry.registerPath(r);
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'hookgate',
      version: '0.1.0',
      description: "PicoClaw's hook protocol over HTTP and WebSocket, with JWT auth and per-tenant grants.",
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    servers: [{ url: 'http://127.0.0.1:8787', description: 'local development' }],
    tags: [],
  }) as unknown as Record<string, unknown>;
}
