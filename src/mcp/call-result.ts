import { type McpContent, mediaContent } from './media-content.js';

/** An MCP CallToolResult (a type, not an interface: the SDK's result types have index signatures). */
export type McpCallResult = {
  content: McpContent[];
  isError?: boolean;
};

/**
 * A hook's before_tool answer (after policy) as the MCP result of tools/call. `respond` is the
 * tool's result; `deny_tool` is an error result with the reason; anything else (continue, a
 * rewrite, an abort, a gateway failure answer) means the hook did not answer this tool, which for
 * an MCP server that exists only to answer it is an error too. `failure` is why the gateway
 * answered for a failed hook.
 */
export function callResult(
  hook: string,
  tool: string,
  answer: Record<string, unknown>,
  failure?: string,
): McpCallResult {
  if (failure !== undefined) return errorResult(`hook "${hook}" failed to answer tool "${tool}": ${failure}`);
  if (answer.action === 'respond' && isObject(answer.result)) return fromToolResult(answer.result);
  if (answer.action === 'deny_tool') {
    const reason = typeof answer.reason === 'string' && answer.reason !== '' ? `: ${answer.reason}` : '';
    return errorResult(`Tool execution denied by hook "${hook}"${reason}`);
  }
  return errorResult(`hook "${hook}" did not answer tool "${tool}" (it answered "${String(answer.action)}")`);
}

/** PicoClaw's ToolResult: `for_llm` is the text, `is_error` the error flag, `media` the rest. */
function fromToolResult(result: Record<string, unknown>): McpCallResult {
  const content: McpContent[] = [
    { type: 'text', text: typeof result.for_llm === 'string' ? result.for_llm : '' },
  ];
  if (Array.isArray(result.media)) {
    result.media.forEach((ref, i) => {
      if (typeof ref === 'string' && ref !== '') content.push(mediaContent(ref, i));
    });
  }
  return result.is_error === true ? { content, isError: true } : { content };
}

function errorResult(text: string): McpCallResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
