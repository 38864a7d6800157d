import { readToolAnswer } from '../protocol/tool-answer.js';
import { type McpContent, mediaContent } from './media-content.js';

/** An MCP CallToolResult (a type, not an interface: the SDK's result types have index signatures). */
export type McpCallResult = {
  content: McpContent[];
  isError?: boolean;
};

/**
 * A hook's before_tool answer (after policy) as the MCP result of tools/call: `respond`'s result
 * (text, then each media ref as the nearest MCP content), or an error result saying why there is
 * none (src/protocol/tool-answer.ts). `failure` is why the gateway answered for a failed hook.
 */
export function callResult(
  hook: string,
  tool: string,
  answer: Record<string, unknown>,
  failure?: string,
): McpCallResult {
  const read = readToolAnswer(hook, tool, answer, failure);
  if (read.kind === 'error') return { content: [{ type: 'text', text: read.message }], isError: true };
  const content: McpContent[] = [{ type: 'text', text: read.text }];
  read.media.forEach((ref, i) => {
    content.push(mediaContent(ref, i));
  });
  return read.isError ? { content, isError: true } : { content };
}
