/** What the plugin needs of OpenClaw's plugin API (`OpenClawPluginApi`). */
export interface PluginApi {
  pluginConfig?: Record<string, unknown>;
  logger?: { warn?: (msg: string) => void; error?: (msg: string) => void };
  on(hook: string, handler: (event: any, ctx: any) => unknown, opts?: Record<string, unknown>): void;
  /** Needed only when the plugin carries the hook's tools. */
  registerTool?(factory: (toolContext: any) => PluginTool, opts: { name: string }): void;
}

/** A tool as OpenClaw runs it (`AgentTool`): execute gets the call id first. */
export interface PluginTool {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(toolCallId: string, params: unknown, signal?: AbortSignal): Promise<ToolResult>;
}

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  details: Record<string, unknown>;
}

/** One of the hook's tools, as `hookgate setup openclaw` writes it into hookgate-tools.json. */
export interface HookTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type PluginConfig =
  | { ok: true; url: string; tokenEnv: string; timeoutMs: number; hooks: string[] }
  | { ok: false; problems: string[] };

export function readConfig(raw: unknown): PluginConfig;
export function readTools(raw: unknown, declared: unknown): { tools: HookTool[]; problems: string[] };
export function plainContext(ctx: unknown): Record<string, unknown>;
export function register(api: PluginApi, bundled?: { tools: HookTool[]; problems: string[] }): void;

declare const entry: { id: string; name: string; description: string; register: typeof register };
export default entry;
