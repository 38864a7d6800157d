// The hookgate OpenClaw plugin: forwards OpenClaw's plugin hooks to a hookgate gateway's
// `/v1/tenants/<tenant>/hooks/<hook>/openclaw` route and returns its answer to OpenClaw.
// Plain ESM JavaScript with no dependencies, so OpenClaw loads it as it is (no build step).

const PLUGIN_ID = 'hookgate';
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

class GatewayFailure extends Error {}

/** One POST to the gateway; the parsed JSON object, or a GatewayFailure saying what went wrong. */
async function forward(config, hook, event, ctx) {
  const token = process.env[config.tokenEnv];
  if (!token) throw new GatewayFailure(`environment variable ${config.tokenEnv} (the token) is not set`);
  let body;
  try {
    body = JSON.stringify({ hook, event, ctx: plainContext(ctx) });
  } catch (err) {
    throw new GatewayFailure(`the ${hook} event is not JSON: ${err.message}`);
  }
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const signal =
    ctx?.abortSignal instanceof AbortSignal ? AbortSignal.any([timeout, ctx.abortSignal]) : timeout;
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
    });
    text = await res.text();
  } catch (err) {
    if (timeout.aborted) throw new GatewayFailure(`no answer within ${config.timeoutMs} ms`);
    const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
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

/** Registers the handlers; exported apart from the entry so tests can pass an api of their own. */
export function register(api) {
  const log = api.logger ?? console;
  const config = readConfig(api.pluginConfig);
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
        try {
          return toolCallResult(await forward(config, hook, event, ctx));
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
        try {
          await forward(config, hook, event, ctx);
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
