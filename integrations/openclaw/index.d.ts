/** What the plugin needs of OpenClaw's plugin API (`OpenClawPluginApi`). */
export interface PluginApi {
  pluginConfig?: Record<string, unknown>;
  logger?: { warn?: (msg: string) => void; error?: (msg: string) => void };
  on(hook: string, handler: (event: any, ctx: any) => unknown, opts?: Record<string, unknown>): void;
}

export type PluginConfig =
  | { ok: true; url: string; tokenEnv: string; timeoutMs: number; hooks: string[] }
  | { ok: false; problems: string[] };

export function readConfig(raw: unknown): PluginConfig;
export function plainContext(ctx: unknown): Record<string, unknown>;
export function register(api: PluginApi): void;

declare const entry: { id: string; name: string; description: string; register: typeof register };
export default entry;
