import { isPlainObject } from '../../policy/equal.js';

/**
 * Claude Code's `tool_response` is the tool's own structured output (Bash: `{stdout, stderr,
 * interrupted, isImage, noOutputExpected}`); a hook sees it as PicoClaw's ToolResult, whose
 * `for_llm` is the text. A rewritten `for_llm` goes back in the tool's own shape
 * (`updatedToolOutput` must match it for built-in tools).
 */

/** The text of a tool's output as a hook sees it in `result.for_llm`. */
export function outputText(response: unknown): string {
  if (typeof response === 'string') return response;
  if (isShellOutput(response)) {
    return response.stderr === '' ? response.stdout : `${response.stdout}\n${response.stderr}`;
  }
  return JSON.stringify(response ?? null);
}

export function toToolResult(response: unknown): Record<string, unknown> {
  const isError = isPlainObject(response) && response.interrupted === true;
  return { for_llm: outputText(response), silent: false, is_error: isError, async: false };
}

/**
 * The tool output carrying `text` in the original's shape, or undefined when the shape cannot
 * carry it (a structured output whose rewrite is not JSON of an object).
 */
export function withText(original: unknown, text: string): unknown {
  if (typeof original === 'string') return text;
  if (isShellOutput(original)) return { ...original, stdout: text, stderr: '' };
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(original) ? isPlainObject(parsed) : parsed !== null) return parsed;
  } catch {
    // not JSON: falls through
  }
  return undefined;
}

function isShellOutput(v: unknown): v is { stdout: string; stderr: string } & Record<string, unknown> {
  return isPlainObject(v) && typeof v.stdout === 'string' && typeof v.stderr === 'string';
}
