/**
 * What a hook's before_tool answer (after policy) says about a tool the hook is asked to run
 * itself: an MCP tools/call, an OpenClaw plugin tool's execute. There is no host tool behind these,
 * so only `respond` gives a result; a denial and anything else (continue, a rewrite, an abort, a
 * gateway failure answer) are errors the model reads. One reading, so every dialect that runs a
 * hook's tool says the same thing about the same answer; each dialect only changes its shape.
 */
export type ToolAnswer =
  /** PicoClaw's ToolResult: `text` is `for_llm`, `media` the refs, `isError` its `is_error`. */
  | { kind: 'result'; text: string; media: string[]; isError: boolean }
  /** Not a result: `message` says why, for the model. */
  | { kind: 'error'; message: string };

/**
 * @param hook the hook's name, for messages
 * @param failure why the gateway answered for a failed hook (the answer is then the failure answer)
 */
export function readToolAnswer(
  hook: string,
  tool: string,
  answer: Record<string, unknown>,
  failure?: string,
): ToolAnswer {
  if (failure !== undefined) return error(`hook "${hook}" failed to answer tool "${tool}": ${failure}`);
  if (answer.action === 'respond' && isObject(answer.result)) {
    const result = answer.result;
    return {
      kind: 'result',
      text: typeof result.for_llm === 'string' ? result.for_llm : '',
      media: Array.isArray(result.media)
        ? result.media.filter((m): m is string => typeof m === 'string' && m !== '')
        : [],
      isError: result.is_error === true,
    };
  }
  if (answer.action === 'deny_tool') {
    const reason = typeof answer.reason === 'string' && answer.reason !== '' ? `: ${answer.reason}` : '';
    return error(`Tool execution denied by hook "${hook}"${reason}`);
  }
  return error(`hook "${hook}" did not answer tool "${tool}" (it answered "${String(answer.action)}")`);
}

function error(message: string): ToolAnswer {
  return { kind: 'error', message };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
