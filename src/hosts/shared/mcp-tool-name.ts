/**
 * Hosts that run a hook on their own tool calls name an MCP tool `mcp__<server>__<tool>` (Claude
 * Code, Hermes). When the server is the hook's own MCP route, the tool is one of the hook's, and the
 * hook, its `tools` and its grants know it by its bare name: the prefix is taken off. Any other MCP
 * tool keeps its full name. One rule for every dialect route that sees such names.
 */
export function bareToolName(name: string, ownMcpServer?: string): string {
  if (ownMcpServer === undefined) return name;
  const prefix = `mcp__${ownMcpServer}__`;
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : name;
}
