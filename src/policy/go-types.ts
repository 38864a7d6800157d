import { GoStruct } from '../lib/go-json-keys.js';
import { Method } from '../protocol/methods.js';

/**
 * The Go structs PicoClaw decodes a hook's result into (pkg/agent/hook_process.go, hooks.go,
 * pkg/providers/protocoltypes, pkg/tools/shared), as far as the gateway reads or passes them on.
 * A hook's answer is read through these before any check, so that the checks see what PicoClaw
 * will see. `meta` and `context` are never passed on (the host's own go back), so they are only
 * typed, not described.
 */

const TOOL_RESULT = new GoStruct({
  for_llm: 'string',
  for_user: 'string',
  silent: 'bool',
  is_error: 'bool',
  async: 'bool',
  media: 'strings',
  artifact_tags: 'strings',
  response_handled: 'bool',
});

const TOOL_CALL = new GoStruct({
  id: 'string',
  type: 'string',
  function: {
    type: 'pointer',
    of: new GoStruct({ name: 'string', arguments: 'string', thought_signature: 'string' }),
  },
  extra_content: {
    type: 'pointer',
    of: new GoStruct({
      google: { type: 'pointer', of: new GoStruct({ thought_signature: 'string' }) },
      tool_feedback_explanation: 'string',
    }),
  },
});

const MESSAGE = new GoStruct({
  role: 'string',
  content: 'string',
  model_name: 'string',
  created_at: 'any', // *time.Time
  media: 'strings',
  attachments: {
    type: 'slice',
    of: new GoStruct({
      type: 'string',
      ref: 'string',
      url: 'string',
      filename: 'string',
      content_type: 'string',
    }),
  },
  reasoning_content: 'string',
  system_parts: {
    type: 'slice',
    of: new GoStruct({
      type: 'string',
      text: 'string',
      cache_control: { type: 'pointer', of: new GoStruct({ type: 'string' }) },
    }),
  },
  tool_calls: { type: 'slice', of: TOOL_CALL },
  tool_call_id: 'string',
});

const TOOL_DEFINITION = new GoStruct({
  type: 'string',
  function: {
    type: 'struct',
    of: new GoStruct({ name: 'string', description: 'string', parameters: 'map' }),
  },
});

const LLM_RESPONSE = new GoStruct({
  content: 'string',
  reasoning_content: 'string',
  tool_calls: { type: 'slice', of: TOOL_CALL },
  finish_reason: 'string',
  usage: {
    type: 'pointer',
    of: new GoStruct({ prompt_tokens: 'number', completion_tokens: 'number', total_tokens: 'number' }),
  },
  reasoning: 'string',
  reasoning_details: {
    type: 'slice',
    of: new GoStruct({ format: 'string', index: 'number', type: 'string', text: 'string' }),
  },
});

const HOOK_ENVELOPE = { meta: 'struct', context: 'pointer' } as const;

const LLM_HOOK_REQUEST = new GoStruct({
  ...HOOK_ENVELOPE,
  model: 'string',
  messages: { type: 'slice', of: MESSAGE },
  tools: { type: 'slice', of: TOOL_DEFINITION },
  options: 'map',
  graceful_terminal: 'bool',
});

const LLM_HOOK_RESPONSE = new GoStruct({
  ...HOOK_ENVELOPE,
  model: 'string',
  response: { type: 'pointer', of: LLM_RESPONSE },
});

const TOOL_CALL_HOOK_REQUEST = new GoStruct({
  ...HOOK_ENVELOPE,
  tool: 'string',
  arguments: 'map',
  channel: 'string',
  chat_id: 'string',
  hook_result: { type: 'pointer', of: TOOL_RESULT },
});

const TOOL_RESULT_HOOK_RESPONSE = new GoStruct({
  ...HOOK_ENVELOPE,
  tool: 'string',
  arguments: 'map',
  result: { type: 'pointer', of: TOOL_RESULT },
  duration: 'number',
});

/** processHookDecisionResponse, embedded in every interceptor result. */
const DECISION = { action: 'string', reason: 'string' } as const;

/** The result struct of each interceptor method (processHook…Response). */
export const INTERCEPTOR_RESULTS: ReadonlyMap<string, GoStruct> = new Map([
  [Method.BeforeLlm, new GoStruct({ ...DECISION, request: { type: 'pointer', of: LLM_HOOK_REQUEST } })],
  [Method.AfterLlm, new GoStruct({ ...DECISION, response: { type: 'pointer', of: LLM_HOOK_RESPONSE } })],
  [
    Method.BeforeTool,
    new GoStruct({
      ...DECISION,
      call: { type: 'pointer', of: TOOL_CALL_HOOK_REQUEST },
      result: { type: 'pointer', of: TOOL_RESULT },
    }),
  ],
  [
    Method.AfterTool,
    new GoStruct({ ...DECISION, result: { type: 'pointer', of: TOOL_RESULT_HOOK_RESPONSE } }),
  ],
]);

/** ApprovalDecision. */
export const APPROVAL_RESULT = new GoStruct({ approved: 'bool', reason: 'string' });
