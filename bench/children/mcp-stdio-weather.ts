/**
 * The weather hook's tool as a plain MCP stdio server, written with the MCP SDK's server: what
 * people put behind supergateway today. It answers `get_weather` with the same text as hookgate's MCP
 * route does for the weather hook, by running the very same tool (examples/weather-hook.ts: zod
 * validation of the arguments, then the handler), so both sides of the comparison do the same tool
 * work and differ only in what carries the call.
 *
 *   node --import tsx bench/children/mcp-stdio-weather.ts     (spawned by supergateway, one per session)
 */
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import hook from '../../examples/weather-hook.js';

const server = new Server({ name: 'weather', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler('tools/list', () => ({
  tools: (hook.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    inputSchema: t.function.parameters as { type: 'object' },
  })),
}));

server.setRequestHandler('tools/call', async (request, ctx) => {
  const { name, arguments: args } = request.params;
  const answer = (await hook.beforeTool?.(
    { tool: name, arguments: args ?? {} },
    { method: 'hook.before_tool', tenant: 'bench', hook: 'weather', signal: ctx.mcpReq.signal },
  )) as { action?: string; result?: { for_llm?: string; is_error?: boolean } } | undefined;
  if (answer?.action !== 'respond' || !answer.result) {
    return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true };
  }
  const content = [{ type: 'text' as const, text: answer.result.for_llm ?? '' }];
  return answer.result.is_error ? { content, isError: true } : { content };
});

await server.connect(new StdioServerTransport());
