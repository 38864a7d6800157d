/**
 * PicoClaw's ToolDefinition (`pkg/providers/protocoltypes`): one entry of before_llm's `tools`,
 * and what an SDK hook declares for each of its tools.
 */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> | null };
}
