import { isEventMethod, Method } from '../protocol/methods.js';
import { isPlainObject } from './equal.js';
import { minimiseEvent } from './minimise-event.js';
import { CONTEXT } from './turn-context.js';
import { DROP, PASS, type Shape, WITHHOLD, withhold } from './withhold.js';

/**
 * Data minimisation: without `conversation_access` no conversation text leaves the gateway. What
 * people and the model say (messages, prompts, assistant text, reasoning, text quoted in channel
 * metadata) is withheld on every route, runtime events included. The `tool` mode still shows a hook
 * the tool call and result it is asked about; structure, roles, ids, model, options and tool
 * definitions still go, so a hook can inject tools or decide on shape. Withheld strings are sent
 * empty. Shapes are allowlists (see withhold.ts): a field not listed is withheld.
 *
 * Returns new objects and never mutates `params` (the gateway compares answers against both).
 */
export function minimiseParams(method: string, params: unknown): unknown {
  if (isEventMethod(method)) return minimiseEvent(method, params);
  const shape = Object.hasOwn(CALL_SHAPES, method) ? CALL_SHAPES[method] : undefined;
  if (!shape || !isPlainObject(params)) return params;
  return withhold(params, shape);
}

const TOOL_CALL: Shape = {
  id: PASS,
  type: PASS,
  function: { name: PASS, arguments: WITHHOLD, thought_signature: WITHHOLD },
  extra_content: WITHHOLD,
};

const MESSAGE: Shape = {
  role: PASS,
  content: WITHHOLD,
  model_name: PASS,
  created_at: PASS,
  media: DROP,
  attachments: DROP,
  reasoning_content: DROP,
  system_parts: { type: PASS, text: WITHHOLD, cache_control: PASS },
  tool_calls: TOOL_CALL,
  tool_call_id: PASS,
};

const LLM_RESPONSE: Shape = {
  content: WITHHOLD,
  reasoning_content: DROP,
  tool_calls: TOOL_CALL,
  finish_reason: PASS,
  usage: PASS,
  reasoning: WITHHOLD,
  reasoning_details: WITHHOLD,
};

/** The tool call (and result) the hook is asked about passes; the conversation around it does not. */
const TOOL_CALL_PARAMS = {
  meta: PASS,
  context: CONTEXT,
  tool: PASS,
  arguments: PASS,
} as const;

const CALL_SHAPES: Readonly<Record<string, Shape>> = {
  [Method.BeforeLlm]: {
    meta: PASS,
    context: CONTEXT,
    model: PASS,
    messages: MESSAGE,
    tools: PASS,
    options: PASS,
    graceful_terminal: PASS,
  },
  [Method.AfterLlm]: { meta: PASS, context: CONTEXT, model: PASS, response: LLM_RESPONSE },
  [Method.BeforeTool]: {
    ...TOOL_CALL_PARAMS,
    channel: PASS,
    chat_id: PASS,
    hook_result: PASS,
  },
  [Method.ApproveTool]: TOOL_CALL_PARAMS,
  [Method.AfterTool]: { ...TOOL_CALL_PARAMS, result: PASS, duration: PASS },
};
