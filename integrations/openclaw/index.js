// The hookgate OpenClaw plugin: forwards OpenClaw's plugin hooks to a hookgate gateway's
// `/v1/tenants/<tenant>/hooks/<hook>/openclaw` route and returns its answer to OpenClaw.
// Plain ESM JavaScript with no dependencies, so OpenClaw loads it as it is (no build step).
//
// It also registers the hook's own tools when the plugin directory carries them
// (`hookgate-tools.json`, written with the matching manifest by `hookgate setup openclaw --out`):
// OpenClaw runs such a tool by asking the gateway, and the hook's `respond` is the result.

import { readFileSync } from 'node:fs';

const PLUGIN_ID = 'hookgate';
/** Not an OpenClaw hook: what the gateway's OpenClaw route runs as the hook's own tool. */
const EXECUTE_TOOL = 'hookgate.execute_tool';
const TOOLS_FILE = 'hookgate-tools.json';
// OpenClaw's rule for tool names a model may call.
const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
// Names OpenClaw keeps for its own tools (OpenClaw 2026.9.6: the core tool catalog, the agent's
// reserved names, the policy's aliases), compared lowercased. OpenClaw drops a plugin tool of such
// a name and runs its own; since this plugin leaves its own tools' before_tool_call alone, that core
// tool would then run without asking the gateway. Such a tool is not registered, so its calls are
// forwarded like any other. A copy of src/hosts/openclaw/core-tools.ts; a test holds the two together.
const CORE_TOOLS = new Set([
  'ls',
  'read',
  'write',
  'edit',
  'apply_patch',
  'exec',
  'process',
  'code_execution',
  'secrets',
  'web_search',
  'web_fetch',
  'x_search',
  'memory_search',
  'memory_get',
  'sessions',
  'sessions_list',
  'sessions_history',
  'sessions_search',
  'conversations_list',
  'conversations_send',
  'conversations_turn',
  'sessions_send',
  'sessions_spawn',
  'github_identity_status',
  'github_publish',
  'agents_wait',
  'sessions_yield',
  'subagents',
  'session_status',
  'suggest_task',
  'dismiss_task',
  'browser',
  'screen',
  'theme',
  'dashboard',
  'terminal',
  'portal',
  'canvas',
  'show_widget',
  'message',
  'heartbeat_respond',
  'automations',
  'gateway',
  'plugins',
  'openclaw',
  'nodes',
  'computer',
  'mobile_ui',
  'agents_list',
  'get_goal',
  'create_goal',
  'update_goal',
  'progress_card',
  'ask_user',
  'skill_workshop',
  'view_image',
  'image_generate',
  'music_generate',
  'video_generate',
  'tts',
  'pdf',
  'bash',
  'find',
  'grep',
  'apply-patch',
  'cron',
]);
// The ids a tool's context carries that the hook may see; the rest (OpenClaw's whole config,
// credential accessors, the delivery helper) never leaves the process.
const TOOL_CTX_IDS = ['agentId', 'sessionKey', 'sessionId'];
const FORWARDABLE = ['before_tool_call', 'after_tool_call', 'llm_input', 'llm_output', 'before_prompt_build'];
const DEFAULT_HOOKS = ['before_tool_call', 'after_tool_call'];
const DEFAULT_TOKEN_ENV = 'HOOKGATE_TOKEN';
const DEFAULT_TIMEOUT_MS = 10_000;
// OpenClaw gives before_tool_call 15 s and then fails closed with a generic message; answering
// before that lets the model read why.
const MAX_TIMEOUT_MS = 14_000;
// ctx fields that are not data: the abort signal, the hook-invocation handle, accessors.
const CTX_SKIP = new Set(['abortSignal', 'hookInvocation', 'getSessionExtension']);

/** The plugin's config, checked; a list of problems instead when it is unusable. */
export function readConfig(raw) {
  const c = raw && typeof raw === 'object' ? raw : {};
  const problems = [];
  let url;
  try {
    url = new URL(String(c.url ?? ''));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('url must be http(s)');
    else if (!/\/v1\/tenants\/[^/]+\/hooks\/[^/]+\/openclaw$/.test(url.pathname)) {
      problems.push('url must end in /v1/tenants/<tenant>/hooks/<hook>/openclaw');
    }
  } catch {
    problems.push('url is missing or not a URL');
  }
  const tokenEnv = c.tokenEnv ?? DEFAULT_TOKEN_ENV;
  if (typeof tokenEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) {
    problems.push('tokenEnv must name an environment variable');
  }
  const timeoutMs = c.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > MAX_TIMEOUT_MS) {
    problems.push(`timeoutMs must be an integer from 100 to ${MAX_TIMEOUT_MS}`);
  }
  const hooks = c.hooks ?? DEFAULT_HOOKS;
  if (!Array.isArray(hooks) || hooks.some((h) => !FORWARDABLE.includes(h))) {
    problems.push(`hooks must be a list of: ${FORWARDABLE.join(', ')}`);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, url: url.href, tokenEnv, timeoutMs, hooks: [...new Set(hooks)] };
}

/** The JSON-safe fields of OpenClaw's hook context (it also carries functions and an AbortSignal). */
export function plainContext(ctx) {
  const out = {};
  if (!ctx || typeof ctx !== 'object') return out;
  for (const [k, v] of Object.entries(ctx)) {
    if (CTX_SKIP.has(k) || typeof v === 'function' || typeof v === 'symbol' || v === undefined) continue;
    try {
      JSON.stringify(v);
      out[k] = v;
    } catch {
      // not JSON (a cycle, a BigInt): left out
    }
  }
  return out;
}

/**
 * The hook's tools as `hookgate setup openclaw` wrote them: `{tools: [{name, description,
 * parameters}]}`, keeping only those the manifest declares in `contracts.tools` (OpenClaw refuses
 * to register any other). Problems are reported, never thrown: the hooks still work without tools.
 */
export function readTools(raw, declared) {
  const problems = [];
  const tools = [];
  const list = raw && typeof raw === 'object' ? raw.tools : undefined;
  if (!Array.isArray(list)) return { tools, problems: [`${TOOLS_FILE}: "tools" is not a list`] };
  const allowed = new Set(Array.isArray(declared) ? declared : []);
  for (const [i, t] of list.entries()) {
    const name = t?.name;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      problems.push(`${TOOLS_FILE}: tools[${i}] has no valid name`);
    } else if (CORE_TOOLS.has(name.toLowerCase())) {
      problems.push(
        `${TOOLS_FILE}: tool "${name}" is named like an OpenClaw core tool (OpenClaw would run its own); not registered`,
      );
    } else if (!allowed.has(name)) {
      problems.push(`${TOOLS_FILE}: tool "${name}" is not in the manifest's contracts.tools`);
    } else if (tools.some((x) => x.name === name)) {
      problems.push(`${TOOLS_FILE}: tool "${name}" is listed twice`);
    } else {
      const parameters =
        t.parameters && typeof t.parameters === 'object' && t.parameters.type === 'object'
          ? t.parameters
          : { type: 'object' };
      tools.push({ name, description: typeof t.description === 'string' ? t.description : '', parameters });
    }
  }
  return { tools, problems };
}

/** The tools bundled next to this file, with the manifest's contracts.tools; none when absent. */
function bundledTools() {
  let raw;
  try {
    raw = JSON.parse(readFileSync(new URL(`./${TOOLS_FILE}`, import.meta.url), 'utf8'));
  } catch (err) {
    if (err?.code === 'ENOENT') return { tools: [], problems: [] };
    return { tools: [], problems: [`${TOOLS_FILE} is not readable JSON: ${err.message}`] };
  }
  let declared = [];
  try {
    const manifest = JSON.parse(readFileSync(new URL('./openclaw.plugin.json', import.meta.url), 'utf8'));
    declared = manifest?.contracts?.tools ?? [];
  } catch {
    // no manifest beside the file: nothing is declared, so every tool is reported
  }
  return readTools(raw, declared);
}

class GatewayFailure extends Error {}

/**
 * One POST to the gateway; the parsed JSON object, or a GatewayFailure saying what went wrong.
 * `ctx` is sent as it is (callers pass only JSON-safe fields); `abort` is OpenClaw's own signal.
 */
async function forward(config, hook, event, ctx, abort) {
  const token = process.env[config.tokenEnv];
  if (!token) throw new GatewayFailure(`environment variable ${config.tokenEnv} (the token) is not set`);
  let body;
  try {
    body = JSON.stringify({ hook, event, ctx });
  } catch (err) {
    throw new GatewayFailure(`the ${hook} event is not JSON: ${err.message}`);
  }
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const signal = abort instanceof AbortSignal ? AbortSignal.any([timeout, abort]) : timeout;
  let res;
  let text;
  try {
    res = await fetch(config.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${token}`,
      },
      body,
      signal,
      // Only the gateway's own answer may decide: a redirect (to wherever) is a failure.
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    if (timeout.aborted) throw new GatewayFailure(`no answer within ${config.timeoutMs} ms`);
    if (abort?.aborted) throw new GatewayFailure('cancelled by OpenClaw');
    const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
    if (/redirect/i.test(String(cause)))
      throw new GatewayFailure('gateway answered with a redirect (not followed)');
    throw new GatewayFailure(`gateway unreachable (${cause})`);
  }
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (!res.ok) {
    const said = answer?.error?.message ?? answer?.error?.code;
    throw new GatewayFailure(
      `gateway answered HTTP ${res.status}${typeof said === 'string' ? `: ${said}` : ''}`,
    );
  }
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) {
    throw new GatewayFailure('gateway answer is not a JSON object');
  }
  return answer;
}

/** The gateway's answer as a before_tool_call result: block, complete params, or nothing. */
function toolCallResult(answer) {
  if (answer.block === true) {
    const blockReason = typeof answer.blockReason === 'string' ? answer.blockReason : 'blocked by hookgate';
    return { block: true, blockReason };
  }
  if (answer.params && typeof answer.params === 'object' && !Array.isArray(answer.params)) {
    return { params: answer.params };
  }
  return undefined;
}

function blockFor(why) {
  return { block: true, blockReason: `hookgate: tool call blocked: ${why}` };
}

/** A failed tool result: the model reads why, OpenClaw records the call as failed. */
function toolError(name, why) {
  const text = `hookgate: tool "${name}" failed: ${why}`;
  return { content: [{ type: 'text', text }], details: { ok: false, error: text } };
}

/** The gateway's tool result, checked: text content and a details object. */
function toolResultOf(answer) {
  const content = Array.isArray(answer.content)
    ? answer.content.filter((c) => c?.type === 'text' && typeof c.text === 'string')
    : [];
  if (content.length === 0) throw new GatewayFailure('gateway answer is not a tool result');
  const details = answer.details && typeof answer.details === 'object' ? answer.details : {};
  return { content: content.map((c) => ({ type: 'text', text: c.text })), details };
}

/** The ids of OpenClaw's tool context the hook may see (meta's AgentID and SessionKey). */
function toolIds(toolContext) {
  const out = {};
  for (const k of TOOL_CTX_IDS) if (typeof toolContext?.[k] === 'string') out[k] = toolContext[k];
  return out;
}

/**
 * Registers one of the hook's tools: OpenClaw builds it per run from the factory (which gives the
 * run's ids), and its execute asks the gateway, whose answer is the hook's respond as the result.
 * A config that cannot work still registers the tool, so a call says why rather than vanishing.
 */
function registerHookTool(api, config, tool, log) {
  api.registerTool(
    (toolContext) => ({
      name: tool.name,
      label: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      async execute(toolCallId, params, signal) {
        if (!config.ok) return toolError(tool.name, `plugin config: ${config.problems.join('; ')}`);
        try {
          const event = { toolName: tool.name, params: params ?? {}, toolCallId };
          return toolResultOf(await forward(config, EXECUTE_TOOL, event, toolIds(toolContext), signal));
        } catch (err) {
          const why = err instanceof GatewayFailure ? err.message : `plugin error: ${err?.message ?? err}`;
          log.warn?.(`[${PLUGIN_ID}] tool ${tool.name}: ${why}`);
          return toolError(tool.name, why);
        }
      },
    }),
    { name: tool.name },
  );
}

/**
 * Registers the handlers and the hook's tools; exported apart from the entry so tests can pass an
 * api and tools of their own.
 */
export function register(api, bundled = bundledTools()) {
  const log = api.logger ?? console;
  const config = readConfig(api.pluginConfig);
  for (const problem of bundled.problems) log.error?.(`[${PLUGIN_ID}] ${problem}`);
  for (const tool of bundled.tools) registerHookTool(api, config, tool, log);
  // The hook answers its own tools when they run; asking it again before (and after) would be a
  // second call, and PicoClaw sends neither for a tool a hook answers.
  const own = new Set(bundled.tools.map((t) => t.name));
  if (!config.ok) {
    // Unusable config fails closed where OpenClaw would: every tool call is refused, saying why.
    const why = `plugin config: ${config.problems.join('; ')}`;
    log.error?.(`[${PLUGIN_ID}] ${why}`);
    api.on('before_tool_call', () => blockFor(why));
    return;
  }
  for (const hook of config.hooks) {
    if (hook === 'before_tool_call') {
      api.on(hook, async (event, ctx) => {
        if (own.has(event?.toolName)) return undefined;
        try {
          return toolCallResult(await forward(config, hook, event, plainContext(ctx), ctx?.abortSignal));
        } catch (err) {
          // Never throw: OpenClaw would block with a generic message; the model should know why.
          const why = err instanceof GatewayFailure ? err.message : `plugin error: ${err?.message ?? err}`;
          log.warn?.(`[${PLUGIN_ID}] ${hook}: ${why}`);
          return blockFor(why);
        }
      });
    } else {
      // Observe hooks (OpenClaw ignores what they return) and before_prompt_build, to which the
      // gateway adds nothing: a failure throws, and OpenClaw logs it and goes on.
      api.on(hook, async (event, ctx) => {
        if (hook === 'after_tool_call' && own.has(event?.toolName)) return undefined;
        try {
          await forward(config, hook, event, plainContext(ctx), ctx?.abortSignal);
        } catch (err) {
          throw new Error(`hookgate: ${hook}: ${err?.message ?? err}`);
        }
        return undefined;
      });
    }
  }
}

export default {
  id: PLUGIN_ID,
  name: 'hookgate',
  description:
    "Forwards OpenClaw's hooks to a hookgate gateway, which answers under the tenant hook's grants",
  register,
};
