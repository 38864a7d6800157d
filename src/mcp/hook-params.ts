import { hookMeta } from '../protocol/hook-meta.js';
/**
 * The params of the hook calls the MCP route makes, shaped as PicoClaw sends them (`meta` is
 * HookMeta: PascalCase, every key present). `Source: "mcp"` tells a hook the call did not come
 * from a host's own turn; there is no turn, session or conversation behind it.
 */
function meta(tracePath: string, requestId: string): Record<string, unknown> {
  return hookMeta({ source: 'mcp', turnId: requestId }, tracePath);
}

/** hook.before_tool for an MCP tools/call. */
export function beforeToolParams(
  tool: string,
  args: Record<string, unknown> | undefined,
  requestId: string,
): Record<string, unknown> {
  return { meta: meta('turn.tool.before', requestId), tool, arguments: args ?? {} };
}

/** hook.before_llm with an empty conversation and no tools: what the hook adds are its own tools. */
export function toolDiscoveryParams(requestId: string): Record<string, unknown> {
  return { meta: meta('turn.llm.request', requestId), model: '', messages: [], tools: [], options: {} };
}
