/**
 * What PicoClaw does with a hook's answer, per the protocol facts read from its Go source
 * (Pipeline.CallLLM / ExecuteTools, HookManager guards, json.Unmarshal zero values). Tests compare
 * host effects, not bytes: two answers are equivalent when PicoClaw would act the same on both.
 */
type Obj = Record<string, any>;

/** A JSON-RPC reply as the host reads it: error or undecodable = failed, missing id = timeout. */
export type Reply = { result: unknown } | { error: unknown } | undefined;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function lower(v: Obj): Obj {
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.toLowerCase(), x]));
}

/** Go decode of the result into its struct; undefined when it would fail (hook failure). */
function decode(result: unknown): Obj | undefined {
  if (result === undefined || result === null) return {};
  if (!isObj(result)) return undefined;
  const r = lower(result);
  if (r.action !== undefined && typeof r.action !== 'string') return undefined;
  if (r.approved !== undefined && typeof r.approved !== 'boolean') return undefined;
  return r;
}

export function hostApprove(reply: Reply): { approved: boolean } {
  if (!reply || !('result' in reply)) return { approved: false };
  const r = decode(reply.result);
  return { approved: r?.approved === true };
}

export function hostBeforeTool(req: Obj, reply: Reply): Obj {
  const original = { run: req.tool, args: req.arguments ?? {} };
  if (!reply || !('result' in reply)) return original;
  const r = decode(reply.result);
  if (!r) return original;
  const action = r.action || 'continue';
  switch (action) {
    case 'continue':
    case 'modify':
      if (!isObj(r.call)) return original;
      return { run: r.call.tool ?? '', args: r.call.arguments ?? {} };
    case 'respond': {
      const result = isObj(r.result) ? r.result : isObj(r.call?.hook_result) ? r.call.hook_result : undefined;
      if (!result) return original;
      return {
        respond: {
          for_llm: result.for_llm ?? '',
          is_error: result.is_error ?? false,
          for_user: result.for_user ?? '',
        },
      };
    }
    case 'deny_tool':
      return { denied: `Tool execution denied by hook${r.reason ? `: ${r.reason}` : ''}` };
    case 'abort_turn':
    case 'hard_abort':
      return { abort: action };
    default:
      return original;
  }
}

function systemMessages(ms: unknown): unknown[] {
  return Array.isArray(ms) ? ms.filter((m) => isObj(m) && m.role === 'system') : [];
}

export function hostBeforeLlm(req: Obj, reply: Reply): Obj {
  const original = { model: req.model, messages: req.messages, tools: req.tools, options: req.options };
  if (!reply || !('result' in reply)) return original;
  const r = decode(reply.result);
  if (!r) return original;
  const action = r.action || 'continue';
  if (action === 'abort_turn' || action === 'hard_abort') return { abort: action };
  if ((action !== 'continue' && action !== 'modify') || !isObj(r.request)) return original;
  const next = r.request;
  let messages = next.messages ?? (systemMessages(req.messages).length > 0 ? req.messages : undefined);
  if (JSON.stringify(systemMessages(messages)) !== JSON.stringify(systemMessages(req.messages)))
    messages = req.messages;
  const tools =
    JSON.stringify(next.tools ?? null) === JSON.stringify(req.tools ?? null) ? next.tools : req.tools;
  return { model: next.model ?? '', messages, tools, options: next.options ?? null };
}

export function hostAfterLlm(req: Obj, reply: Reply): Obj {
  const original = { response: req.response };
  if (!reply || !('result' in reply)) return original;
  const r = decode(reply.result);
  if (!r) return original;
  const action = r.action || 'continue';
  if (action === 'abort_turn' || action === 'hard_abort') return { abort: action };
  if (action !== 'continue' && action !== 'modify') return original;
  const inner = isObj(r.response) ? r.response.response : undefined;
  return isObj(inner) ? { response: inner } : original;
}

export function hostAfterTool(req: Obj, reply: Reply): Obj {
  const original = { tool: req.tool, result: req.result };
  if (!reply || !('result' in reply)) return original;
  const r = decode(reply.result);
  if (!r) return original;
  const action = r.action || 'continue';
  if (action === 'abort_turn' || action === 'hard_abort') return { abort: action };
  if ((action !== 'continue' && action !== 'modify') || !isObj(r.result)) return original;
  return {
    tool: typeof r.result.tool === 'string' && r.result.tool !== '' ? r.result.tool : req.tool,
    result: isObj(r.result.result) ? r.result.result : req.result,
  };
}

export function hostEffect(method: string, params: Obj, reply: Reply): Obj {
  switch (method) {
    case 'hook.approve_tool':
      return hostApprove(reply);
    case 'hook.before_tool':
      return hostBeforeTool(params, reply);
    case 'hook.before_llm':
      return hostBeforeLlm(params, reply);
    case 'hook.after_llm':
      return hostAfterLlm(params, reply);
    case 'hook.after_tool':
      return hostAfterTool(params, reply);
    default:
      throw new Error(`no host effect for ${method}`);
  }
}
