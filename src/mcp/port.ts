import type { ToolDescription } from '../config/runtime.js';
import type { ToolDefinition } from '../protocol/tool-definition.js';

/**
 * What the MCP server needs from the gateway for one request, and nothing more: the MCP code
 * never sees tokens, policies or backends. src/server/mcp-route.ts builds it per request.
 */
export interface McpHookPort {
  /** For messages: the hook's name. */
  readonly hook: string;
  /** The tools this caller may see and call: the hook's `tools`, narrowed by the token's claim. */
  readonly tools: ReadonlySet<string>;
  /** Definitions from the hook's config (`tool_definitions`): the first source. */
  readonly configured: ReadonlyMap<string, ToolDescription>;
  /** Definitions the hook declares itself (an SDK hook hosted in process): the second source. */
  declared(): readonly ToolDefinition[] | undefined;
  /**
   * The third source: what the hook injects in before_llm. Absent when it cannot be asked (the
   * hook does not intercept llm calls, or has no backend).
   */
  readonly injected?: InjectedToolsSource;
  /** hook.before_tool through the gateway's call path (mode gate, policy, audit, limits, deadlines). */
  beforeTool(params: Record<string, unknown>): Promise<HookCallOutcome>;
  /**
   * Whether a tools/call (as hook.before_tool params) may reach the hook: false for a tool outside
   * `tools` or one whose `tools` condition does not hold on these arguments, audited; the hook
   * never sees it.
   */
  admits(params: Record<string, unknown>): boolean;
}

/** Where a hook's injected definitions come from, and when they must be asked again. */
export interface InjectedToolsSource {
  /** Same object for as long as the hook's backend lives (a reload that changes the hook replaces it). */
  readonly key: object;
  /** Changes when the hook restarted. */
  readonly starts: number;
  /** The hook's own tools: what it may inject, whoever asks. */
  readonly tools: ReadonlySet<string>;
  /** hook.before_llm through the same path, with the hook's own tools (not the caller's narrowed ones). */
  ask(params: Record<string, unknown>): Promise<HookCallOutcome>;
}

export type HookCallOutcome =
  /** The hook's answer after policy; `failure` says why when the gateway answered for a failed hook. */
  | { answer: Record<string, unknown>; failure?: string }
  /** A tenant or hook limit refused the call before it reached the hook. */
  | { limited: { limit: string; retryAfterMs: number } };
