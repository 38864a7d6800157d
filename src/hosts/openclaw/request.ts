import { ownString, ownValue as own } from '../../lib/own-property.js';
import { type CallIds, hookMeta, hostRuntimeEvent } from '../../protocol/hook-meta.js';
import { isPlainObject } from '../../policy/equal.js';
import { type CallMethod, Method } from '../../protocol/methods.js';

/**
 * OpenClaw plugin-hook call (as the hookgate plugin forwards it) → one hook call on the PicoClaw
 * methods. Pure: the caller passes the request id and the clock. OpenClaw's hooks run in-process,
 * so the wire is the plugin's: `{"hook": <OpenClaw hook name>, "event": {…}, "ctx": {…}}`, where
 * `event` and the JSON-safe fields of `ctx` are OpenClaw's own (shapes captured from OpenClaw
 * 2026.9.6, see docs/hosts/openclaw.md).
 */

/** The OpenClaw hooks that become a call; every other hook is a runtime event for observers. */
export const CALL_HOOKS = {
  before_tool_call: Method.BeforeTool,
  after_tool_call: Method.AfterTool,
  // The model request exactly as it leaves (system prompt, history, prompt). OpenClaw only lets a
  // plugin observe it, so the hook's answer is ignored.
  llm_input: Method.BeforeLlm,
  llm_output: Method.AfterLlm,
} as const satisfies Record<string, CallMethod>;

export type CallHook = keyof typeof CALL_HOOKS;

/**
 * Not an OpenClaw hook: the plugin posts this when OpenClaw runs one of the hook's own tools, which
 * the plugin registered with OpenClaw (`api.registerTool`). The dot keeps it apart from OpenClaw's
 * hook names, which are snake_case words.
 */
export const EXECUTE_TOOL = 'hookgate.execute_tool';

export type HookRequest =
  | {
      kind: 'call';
      hook: CallHook;
      method: CallMethod;
      params: Record<string, unknown>;
      /** The tool's params as OpenClaw sent them (tool hooks), to complete a rewrite. */
      toolParams?: Record<string, unknown>;
    }
  /**
   * OpenClaw runs one of the hook's own tools: hook.before_tool, whose `respond` is the result
   * (the real equivalent of PicoClaw's respond; see docs/hosts/openclaw.md).
   */
  | { kind: 'execute'; tool: string; params: Record<string, unknown> }
  | { kind: 'event'; hook: string; params: Record<string, unknown> }
  | { kind: 'invalid'; why: string };

export interface RequestOptions {
  /** Becomes the runtime event's id. */
  requestId: string;
  /** ISO time for the runtime event. */
  now: string;
}

const obj = (v: unknown): Record<string, unknown> => (isPlainObject(v) ? v : {});

/** OpenClaw's agent, run and session ids, in PicoClaw's terms (HookMeta, runtime event scope). */
function idsOf(ctx: Record<string, unknown>, runId: string): CallIds {
  return {
    source: 'openclaw',
    agentId: ownString(ctx, 'agentId'),
    turnId: runId,
    sessionKey: ownString(ctx, 'sessionKey') || ownString(ctx, 'sessionId'),
  };
}

const meta = (event: Record<string, unknown>, ctx: Record<string, unknown>, tracePath: string) =>
  hookMeta(idsOf(ctx, ownString(event, 'runId') || ownString(ctx, 'runId')), tracePath);

export function toHookRequest(body: unknown, opts: RequestOptions): HookRequest {
  if (!isPlainObject(body)) return { kind: 'invalid', why: 'body is not a JSON object' };
  const hook = own(body, 'hook');
  if (typeof hook !== 'string' || hook === '') return { kind: 'invalid', why: 'hook is missing' };
  const event = own(body, 'event');
  if (!isPlainObject(event)) return { kind: 'invalid', why: 'event is not an object' };
  const rawCtx = own(body, 'ctx');
  if (rawCtx !== undefined && rawCtx !== null && !isPlainObject(rawCtx)) {
    return { kind: 'invalid', why: 'ctx is not an object' };
  }
  const ctx = obj(rawCtx);
  if (hook === EXECUTE_TOOL) return executeTool(event, ctx);
  if (!Object.hasOwn(CALL_HOOKS, hook)) {
    return { kind: 'event', hook, params: runtimeEvent(hook, event, ctx, opts) };
  }
  const callHook = hook as CallHook;
  const method = CALL_HOOKS[callHook];
  if (callHook === 'llm_input') {
    return { kind: 'call', hook: callHook, method, params: llmRequest(event, ctx) };
  }
  if (callHook === 'llm_output') {
    const texts = own(event, 'assistantTexts');
    const content = Array.isArray(texts) ? texts.filter((t) => typeof t === 'string').join('\n') : '';
    return {
      kind: 'call',
      hook: callHook,
      method,
      params: {
        meta: meta(event, ctx, 'turn.llm.response'),
        model: ownString(event, 'model'),
        response: { role: 'assistant', content },
      },
    };
  }
  const name = own(event, 'toolName');
  if (typeof name !== 'string' || name === '') return { kind: 'invalid', why: 'event.toolName is missing' };
  const rawParams = own(event, 'params');
  if (rawParams !== undefined && rawParams !== null && !isPlainObject(rawParams)) {
    return { kind: 'invalid', why: 'event.params is not an object' };
  }
  const toolParams = obj(rawParams);
  const before = callHook === 'before_tool_call';
  const params: Record<string, unknown> = {
    meta: meta(event, ctx, before ? 'turn.tool.before' : 'turn.tool.after'),
    tool: name,
    arguments: toolParams,
  };
  if (before) return { kind: 'call', hook: callHook, method, params, toolParams };
  params.result = toolResult(event);
  const ms = own(event, 'durationMs');
  // PicoClaw's after_tool duration is in nanoseconds.
  params.duration = typeof ms === 'number' && Number.isFinite(ms) ? Math.round(ms * 1e6) : 0;
  return { kind: 'call', hook: callHook, method, params, toolParams };
}

/**
 * A plugin tool's execute: `event` is `{toolName, params, toolCallId}`, `ctx` the ids from
 * OpenClaw's tool context (agentId, sessionKey). Sent as PicoClaw sends
 * before_tool, so a hook answers it exactly as it answers its injected tool on PicoClaw.
 */
function executeTool(event: Record<string, unknown>, ctx: Record<string, unknown>): HookRequest {
  const tool = own(event, 'toolName');
  if (typeof tool !== 'string' || tool === '') return { kind: 'invalid', why: 'event.toolName is missing' };
  const args = own(event, 'params');
  if (args !== undefined && args !== null && !isPlainObject(args)) {
    return { kind: 'invalid', why: 'event.params is not an object' };
  }
  // OpenClaw gives a tool no run id, so TurnID stays empty rather than naming something else.
  return {
    kind: 'execute',
    tool,
    params: { meta: hookMeta(idsOf(ctx, ''), 'turn.tool.before'), tool, arguments: obj(args) },
  };
}

/**
 * OpenClaw's tool result (`{content: [{type: "text", text}], details}`) as PicoClaw's ToolResult:
 * `for_llm` is the text the model reads; a blocked or failed call carries `error`.
 */
function toolResult(event: Record<string, unknown>): Record<string, unknown> {
  const error = own(event, 'error');
  const result = own(event, 'result');
  let text = typeof error === 'string' ? error : '';
  if (isPlainObject(result) && Array.isArray(result.content)) {
    const parts = result.content.filter(
      (p): p is { text: string } => isPlainObject(p) && p.type === 'text' && typeof p.text === 'string',
    );
    if (parts.length > 0) text = parts.map((p) => p.text).join('\n');
  } else if (typeof result === 'string') {
    text = result;
  }
  return { for_llm: text, silent: false, is_error: typeof error === 'string', async: false };
}

/** An OpenClaw AgentMessage's text: a string, or its text parts joined. */
function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p) => isPlainObject(p) && p.type === 'text' && typeof p.text === 'string')
    .map((p) => (p as { text: string }).text)
    .join('\n');
}

/**
 * llm_input as PicoClaw's before_llm request: the system prompt, the history and the prompt as
 * messages. The tool schemas (~180 KB in a stock OpenClaw) are not sent: OpenClaw cannot change
 * them here, and a hook that needs to narrow tools does so per call in before_tool.
 */
function llmRequest(event: Record<string, unknown>, ctx: Record<string, unknown>): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  const system = own(event, 'systemPrompt');
  if (typeof system === 'string' && system !== '') messages.push({ role: 'system', content: system });
  const history = own(event, 'historyMessages');
  if (Array.isArray(history)) {
    for (const m of history) {
      if (!isPlainObject(m)) continue;
      messages.push({ role: ownString(m, 'role'), content: messageText(own(m, 'content')) });
    }
  }
  messages.push({ role: 'user', content: ownString(event, 'prompt') });
  return { meta: meta(event, ctx, 'turn.llm.request'), model: ownString(event, 'model'), messages };
}

/**
 * Every other hook, as a PicoClaw runtime event. Its kind is unknown to the gateway's minimisation,
 * so without conversation_access every string of the payload (before_prompt_build's prompt,
 * agent_end's messages, …) is withheld; the session and run ids travel in the scope.
 */
function runtimeEvent(
  hook: string,
  event: Record<string, unknown>,
  ctx: Record<string, unknown>,
  opts: RequestOptions,
): Record<string, unknown> {
  const ids = idsOf(ctx, ownString(ctx, 'runId'));
  return hostRuntimeEvent(hook, { ...ids, name: ids.agentId }, event, opts);
}
