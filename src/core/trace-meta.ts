/**
 * How a hook on stdio learns the trace context of its call: a pipe has no headers, so the gateway
 * (with server.tracing on, and only then) adds `_meta: { traceparent }` to the params it sends, as
 * MCP carries trace context in a JSON-RPC message (SEP-414). The SDK's stdio runner reads it back
 * into `ctx.traceparent` (src/sdk/stdio.ts). A `_meta` the host sent keeps its other members.
 *
 * The result is a new object, so these params are serialised rather than forwarded as the host
 * wrote them (src/core/params-text.ts): with tracing off nothing changes.
 */
export function withTraceMeta(params: unknown, traceparent: string): unknown {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params;
  const own = (params as { _meta?: unknown })._meta;
  const meta = typeof own === 'object' && own !== null && !Array.isArray(own) ? own : {};
  return { ...params, _meta: { ...meta, traceparent } };
}

/** The trace context a message's params carry in `_meta` (what withTraceMeta added), if any. */
export function traceMetaOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const value = (meta as { traceparent?: unknown }).traceparent;
  return typeof value === 'string' ? value : undefined;
}
