/**
 * The `traceparent` a multiplexed message carries for itself: `params._meta.traceparent` (MCP's
 * convention for trace context in a JSON-RPC message, SEP-414) or `params.meta.traceparent` (in
 * PicoClaw's own `meta`). One WebSocket carries many calls, each its own span: a header set once
 * at the upgrade cannot tell them apart. Validity is checked where it is used (parseTraceparent).
 */
export function messageTraceparent(msg: unknown): string | undefined {
  const params = (msg as { params?: unknown } | null)?.params;
  if (typeof params !== 'object' || params === null) return undefined;
  return (
    fieldOf((params as Record<string, unknown>)._meta) ?? fieldOf((params as Record<string, unknown>).meta)
  );
}

function fieldOf(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const value = (meta as Record<string, unknown>).traceparent;
  return typeof value === 'string' ? value : undefined;
}
