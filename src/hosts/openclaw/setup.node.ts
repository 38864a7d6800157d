import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookRuntime } from '../../config/runtime.js';
import { isOpenClawCoreTool } from './core-tools.js';
import { HookgateError } from '../../lib/errors.js';
import { packageRoot } from '../../node/package-info.js';
import { GATEWAY_MARGIN_MS, hookRouteUrl, TOKEN_ENV } from '../shared/setup-common.node.js';

/** OpenClaw gives a before_tool_call handler 15 s; the plugin refuses a limit above this. */
const PLUGIN_MAX_TIMEOUT_MS = 14_000;
/**
 * The tool names OpenClaw lets a plugin register (and a model call). The plugin, which imports
 * nothing, keeps the same rule; a test holds the two together.
 */
export const OPENCLAW_TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** The plugin's files copied as they are; the manifest is rewritten, the tools file written. */
const PLUGIN_FILES = ['index.js', 'index.d.ts', 'package.json', 'README.md'];
const MANIFEST = 'openclaw.plugin.json';
const TOOLS_FILE = 'hookgate-tools.json';

export interface OpenClawTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface OpenClawSetup {
  /** `plugins.entries.hookgate` of OpenClaw's openclaw.json. */
  entry: Record<string, unknown>;
  /** The hook's own tools, as the plugin registers them with OpenClaw. */
  tools: OpenClawTool[];
  /** Tools without `tool_definitions` in the config: offered with any arguments. */
  undescribed: string[];
  /** The hook's deadline does not fit under OpenClaw's budget: OpenClaw may give up first. */
  deadlineTooLong: boolean;
}

/**
 * What OpenClaw needs to use one hook: the plugin's config entry, and the hook's tools for the
 * plugin to register. Only the OpenClaw hooks the hook's modes cover are forwarded; the LLM-level
 * ones need OpenClaw's `allowConversationAccess`. The request limit is the hook's deadline plus a
 * margin (the approval deadline too with the approve mode), so the gateway's failure answer
 * arrives first, within the plugin's 14 s ceiling.
 */
export function openClawSetup(
  hook: HookRuntime,
  baseUrl: string,
  /** Definitions the gateway lists for the hook (its MCP route's tools/list), taken first. */
  listed: ReadonlyMap<string, { description?: string; inputSchema: Record<string, unknown> }> = new Map(),
): OpenClawSetup {
  const hooks: string[] = [];
  if (hook.modes.has('tool') || hook.modes.has('approve')) hooks.push('before_tool_call');
  if (hook.modes.has('tool')) hooks.push('after_tool_call');
  if (hook.modes.has('llm')) hooks.push('llm_input', 'llm_output');
  if (hook.modes.has('observe')) hooks.push('before_prompt_build');
  const deadlineMs =
    hook.timeoutMs + (hook.modes.has('approve') ? hook.approvalTimeoutMs : 0) + GATEWAY_MARGIN_MS;
  const entry: Record<string, unknown> = {
    enabled: true,
    config: {
      url: hookRouteUrl(baseUrl, hook, 'openclaw'),
      tokenEnv: TOKEN_ENV,
      timeoutMs: Math.min(deadlineMs, PLUGIN_MAX_TIMEOUT_MS),
      hooks,
    },
  };
  if (hooks.some((h) => h.startsWith('llm_') || h === 'before_prompt_build')) {
    entry.hooks = { allowConversationAccess: true };
  }
  const tools: OpenClawTool[] = [];
  const undescribed: string[] = [];
  for (const name of hook.tools) {
    if (!OPENCLAW_TOOL_NAME.test(name)) {
      throw new HookgateError(
        'BAD_TOOL_NAME',
        `tool ${JSON.stringify(name)} of hook "${hook.name}" is not a name OpenClaw accepts (a letter, then letters, digits, _ or -, at most 64)`,
      );
    }
    if (isOpenClawCoreTool(name)) {
      throw new HookgateError(
        'BAD_TOOL_NAME',
        `tool ${JSON.stringify(name)} of hook "${hook.name}" is named like an OpenClaw core tool: OpenClaw would run its own tool instead, without asking the gateway; rename it`,
      );
    }
    const described = listed.get(name) ?? hook.toolDefinitions.get(name);
    if (!described) undescribed.push(name);
    tools.push({
      name,
      description: described?.description ?? '',
      parameters: described?.inputSchema ?? { type: 'object' },
    });
  }
  return { entry, tools, undescribed, deadlineTooLong: deadlineMs > PLUGIN_MAX_TIMEOUT_MS };
}

/**
 * Writes the plugin into `dir` for `openclaw plugins install <dir>`: the plugin's files, its
 * manifest declaring the hook's tools (`contracts.tools`: OpenClaw registers no tool a manifest
 * does not declare) and the tools' definitions. Refuses a directory that has other files in it
 * unless `force`. Returns the files written.
 */
export function writeOpenClawPlugin(dir: string, setup: OpenClawSetup, force = false): string[] {
  const source = pluginSource();
  if (existsSync(dir) && readdirSync(dir).length > 0 && !force) {
    throw new HookgateError('OUT_NOT_EMPTY', `${dir} is not empty (--force writes over it)`);
  }
  mkdirSync(dir, { recursive: true });
  for (const file of PLUGIN_FILES) copyFileSync(join(source, file), join(dir, file));
  const manifest = JSON.parse(readFileSync(join(source, MANIFEST), 'utf8')) as Record<string, unknown>;
  if (setup.tools.length > 0) manifest.contracts = { tools: setup.tools.map((t) => t.name) };
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, TOOLS_FILE), `${JSON.stringify({ tools: setup.tools }, null, 2)}\n`);
  return [...PLUGIN_FILES, MANIFEST, TOOLS_FILE];
}

/** The OpenClaw plugin shipped with hookgate (integrations/openclaw in a clone and in the package). */
function pluginSource(): string {
  const root = packageRoot();
  const dir = root === undefined ? undefined : join(root, 'integrations', 'openclaw');
  if (!dir || !existsSync(join(dir, MANIFEST))) {
    throw new HookgateError(
      'NOT_FOUND',
      'the OpenClaw plugin is not beside this hookgate (integrations/openclaw)',
    );
  }
  return dir;
}

/**
 * The hook's tools as the running gateway describes them to this token: its MCP route's
 * tools/list (one stateless 2025-11-25 POST), which takes the config's `tool_definitions`, then an
 * SDK hook's own declarations, then what the hook injects in before_llm. A tool the gateway lists
 * with only the loosest schema is left out, so the config's definition (if any) still applies.
 */
export async function listedByGateway(
  mcpUrl: string,
  token: string,
  fetchImpl: typeof fetch = fetch,
): Promise<Map<string, { description?: string; inputSchema: Record<string, unknown> }>> {
  let res: Response;
  try {
    res = await fetchImpl(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new HookgateError('GATEWAY_UNREACHABLE', `cannot reach ${mcpUrl}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: { result?: { tools?: unknown }; error?: { message?: unknown } } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const tools = body?.result?.tools;
  if (!res.ok || !Array.isArray(tools)) {
    const said = body?.error?.message ?? (body as { error?: { code?: unknown } })?.error?.code;
    throw new HookgateError(
      'GATEWAY_REFUSED',
      `${mcpUrl} answered tools/list with HTTP ${res.status}${typeof said === 'string' ? `: ${said}` : ''}`,
    );
  }
  const out = new Map<string, { description?: string; inputSchema: Record<string, unknown> }>();
  for (const t of tools as { name?: unknown; description?: unknown; inputSchema?: unknown }[]) {
    if (typeof t?.name !== 'string' || typeof t.inputSchema !== 'object' || t.inputSchema === null) continue;
    const schema = t.inputSchema as Record<string, unknown>;
    const loosest = Object.keys(schema).length === 1 && schema.type === 'object';
    if (loosest && typeof t.description !== 'string') continue;
    out.set(t.name, {
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      inputSchema: schema,
    });
  }
  return out;
}
