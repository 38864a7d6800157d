import { isPlainObject, jsonEqual } from '../../policy/equal.js';
import type { HookRequest } from './request.js';

/**
 * Policy-checked PicoClaw answer → what the shell hook prints for Hermes. Pure. The answer has
 * already passed the gateway's grants (including the refusal of a rewrite that removes an
 * argument, which Hermes's shallow merge cannot carry), so this only changes shape. `{}` is no
 * decision: Hermes goes on as it would without the hook.
 *
 * `conversationAccess` is the hook's grant: only then may text it wrote reach the conversation
 * (pre_llm_call's `context`).
 */
export function toHostAnswer(
  request: Extract<HookRequest, { kind: 'call' }>,
  answer: Record<string, unknown>,
  conversationAccess: boolean,
): Record<string, unknown> {
  switch (request.event) {
    case 'pre_tool_call':
      return preToolAnswer(request, answer);
    case 'pre_llm_call':
      return conversationAccess ? llmContext(request, answer) : {};
    case 'post_tool_call':
      // A shell hook cannot rewrite a tool's result or stop the turn in Hermes: nothing to carry.
      return {};
  }
}

function block(message: string): Record<string, unknown> {
  return { action: 'block', message };
}

function preToolAnswer(
  request: Extract<HookRequest, { kind: 'call' }>,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  const action = typeof answer.action === 'string' ? answer.action : 'continue';
  const reason = typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : undefined;
  if (action === 'deny_tool') return block(reason ?? 'denied by hook');
  // Hermes cannot stop a turn from a shell hook; not running this call is the nearest.
  if (action === 'abort_turn' || action === 'hard_abort') return block(reason ?? 'turn stopped by hook');
  if (action === 'respond') {
    // Hermes cannot take a result without running the tool, but a block's message becomes the
    // tool result the model reads.
    const result = isPlainObject(answer.result) ? answer.result : undefined;
    return block(typeof result?.for_llm === 'string' ? result.for_llm : (reason ?? ''));
  }
  const call = isPlainObject(answer.call) ? answer.call : undefined;
  if (!call) return {};
  if (call.tool !== request.params.tool) {
    // Running the old tool with the new tool's arguments is neither what the model nor the hook asked.
    return block(`hookgate: Hermes cannot redirect "${request.params.tool}" to "${String(call.tool)}"`);
  }
  const original = request.toolInput ?? {};
  const args = isPlainObject(call.arguments) ? call.arguments : original;
  if (jsonEqual(args, original)) return {};
  // The complete arguments: Hermes merges them into the original key by key, which gives exactly
  // these (the gateway refused any rewrite that removes a key).
  return { action: 'modify', args };
}

/**
 * pre_llm_call can only append text to the user's message. The hook's granted edit is carried when
 * it is such an append: messages added after the host's, or text added at the end of the user's
 * message. Any other edit of the conversation cannot be carried.
 */
function llmContext(
  request: Extract<HookRequest, { kind: 'call' }>,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  const sent = isPlainObject(answer.request) ? answer.request : undefined;
  if (!sent || !Array.isArray(sent.messages)) return {};
  const before = Array.isArray(request.params.messages) ? request.params.messages : [];
  const after: unknown[] = sent.messages;
  const prefix = Math.min(before.length, after.length);
  let context = '';
  if (after.length > before.length && before.every((m, i) => jsonEqual(m, after[i]))) {
    context = after
      .slice(before.length)
      .map((m) => (isPlainObject(m) && typeof m.content === 'string' ? m.content : ''))
      .filter((t) => t !== '')
      .join('\n\n');
  } else if (after.length === before.length && prefix > 0) {
    const last = before[prefix - 1];
    const edited = after[prefix - 1];
    const same = before.slice(0, prefix - 1).every((m, i) => jsonEqual(m, after[i]));
    if (
      same &&
      isPlainObject(last) &&
      isPlainObject(edited) &&
      typeof last.content === 'string' &&
      typeof edited.content === 'string' &&
      edited.content.startsWith(last.content)
    ) {
      context = edited.content.slice(last.content.length);
    }
  }
  return context.trim() === '' ? {} : { context: context.trim() };
}
