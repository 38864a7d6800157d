import type { ToolDescription } from '../config/runtime.js';

/** An MCP `Tool` as tools/list carries it. */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

/** A tool nothing describes: MCP clients need an object schema, so the loosest one. */
export const ANY_ARGUMENTS = { type: 'object' } as const;

/** The definition sources, in the order they win. */
export interface DefinitionSources {
  configured: ReadonlyMap<string, ToolDescription>;
  declared: ReadonlyMap<string, ToolDescription>;
  injected: ReadonlyMap<string, ToolDescription>;
}

/** Every name in `tools`, in its order, described by the first source that knows it. */
export function listTools(tools: Iterable<string>, sources: DefinitionSources): McpTool[] {
  const out: McpTool[] = [];
  for (const name of tools) {
    const found = sources.configured.get(name) ?? sources.declared.get(name) ?? sources.injected.get(name);
    const tool: McpTool = { name, inputSchema: objectSchema(found?.inputSchema) };
    if (found?.description) tool.description = found.description;
    out.push(tool);
  }
  return out;
}

/**
 * The hook's tools this server offers: none named as a host names an MCP tool (`mcp_<server>_<tool>`
 * in PicoClaw, `mcp__<server>__<tool>` in Claude Code and Hermes). Such a name is how a host shows
 * one of these tools, never one of them: listed, it would reach the model prefixed once more
 * (`mcp_hookgate_mcp_hookgate_get_weather` in PicoClaw), a tool nobody serves. The hook may still
 * keep it in `tools` for the host's own tool calls on its other routes.
 */
export function servedTools(tools: ReadonlySet<string>): ReadonlySet<string> {
  for (const name of tools) {
    if (isHostMcpName(name)) return new Set([...tools].filter((t) => !isHostMcpName(t)));
  }
  return tools;
}

function isHostMcpName(name: string): boolean {
  return name.startsWith('mcp_');
}

/**
 * PicoClaw ToolDefinitions (`{type:"function",function:{name,description,parameters}}`, from an
 * SDK hook or a before_llm answer) by name, for the names in `wanted`. Entries of any other shape
 * are skipped: they come from a hook, not from the config, and one bad entry must not hide the rest.
 */
export function describeDefinitions(
  definitions: readonly unknown[] | undefined,
  wanted: ReadonlySet<string>,
): Map<string, ToolDescription> {
  const out = new Map<string, ToolDescription>();
  if (!Array.isArray(definitions)) return out;
  for (const def of definitions) {
    const fn = isObject(def) && def.type === 'function' && isObject(def.function) ? def.function : undefined;
    if (!fn || typeof fn.name !== 'string' || !wanted.has(fn.name) || out.has(fn.name)) continue;
    const description: ToolDescription = { inputSchema: objectSchema(fn.parameters) };
    if (typeof fn.description === 'string' && fn.description !== '') description.description = fn.description;
    out.set(fn.name, description);
  }
  return out;
}

/** A hook's parameters schema when it is an object schema (what MCP requires), else the loosest one. */
function objectSchema(schema: unknown): McpTool['inputSchema'] {
  if (isObject(schema) && schema.type === 'object') return schema as McpTool['inputSchema'];
  return { ...ANY_ARGUMENTS };
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
