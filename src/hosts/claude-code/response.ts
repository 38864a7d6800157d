import { askedPerson } from '../../policy/answers.js';
import { fillBack, isPlainObject, jsonEqual } from '../../policy/equal.js';
import type { HookRequest } from './request.js';
import { outputText, withText } from './tool-output.js';

/**
 * Policy-checked PicoClaw answer → Claude Code's answer for the event. Pure. The answer has already
 * passed the gateway's grants, so this only changes shape; where Claude Code has no equivalent it
 * answers `{}` (no decision: the host goes on as it would without the hook) or, where going on
 * would do something the hook did not ask for, a denial.
 *
 * A gateway rule's `ask` is PreToolUse `permissionDecision: "ask"`. Never emitted:
 * PreToolUse `permissionDecision: "allow"` (it would also skip the permission
 * prompt) and PermissionRequest `updatedPermissions` (persistent allow rules).
 */
export function toHostAnswer(
  request: Extract<HookRequest, { kind: 'call' }>,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  const action = typeof answer.action === 'string' ? answer.action : 'continue';
  const reason = typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : undefined;
  switch (request.event) {
    case 'PermissionRequest':
      return permissionAnswer(answer);
    case 'UserPromptSubmit':
      // A prompt cannot be rewritten in Claude Code; blocking it is the nearest to aborting the turn.
      if (action === 'abort_turn' || action === 'hard_abort') {
        return { decision: 'block', reason: reason ?? 'blocked by hook' };
      }
      return {};
    case 'PreToolUse':
      if (action === 'abort_turn' || action === 'hard_abort') return stop(reason);
      return preToolAnswer(request, action, reason, answer);
    case 'PostToolUse':
      if (action === 'abort_turn' || action === 'hard_abort') return stop(reason);
      return postToolAnswer(request, answer);
  }
}

function stop(reason: string | undefined): Record<string, unknown> {
  return { continue: false, stopReason: reason ?? 'turn stopped by hook' };
}

function deny(reason: string): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  };
}

function preToolAnswer(
  request: Extract<HookRequest, { kind: 'call' }>,
  action: string,
  reason: string | undefined,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  if (action === 'deny_tool') return deny(reason ?? 'denied by hook');
  const ask = askedPerson(answer);
  if (ask !== undefined) {
    // A gateway rule's ask: Claude Code's own, which shows the person's prompt even for a tool its
    // permission rules allow (headless, with nobody to ask, it is a denial).
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: ask,
      },
    };
  }
  if (action === 'respond') {
    // Claude Code cannot take a result without running the tool: the nearest is a refusal whose
    // reason is the result text, which the model reads as the tool's answer.
    const result = isPlainObject(answer.result) ? answer.result : undefined;
    return deny(typeof result?.for_llm === 'string' ? result.for_llm : (reason ?? ''));
  }
  const call = isPlainObject(answer.call) ? answer.call : undefined;
  if (!call) return {};
  if (call.tool !== request.params.tool) {
    // Claude Code cannot rename a call; running the old tool with the new tool's input would be
    // neither what the model nor what the hook asked for.
    return deny(`hookgate: Claude Code cannot redirect "${request.params.tool}" to "${String(call.tool)}"`);
  }
  const original = request.toolInput ?? {};
  const changed = isPlainObject(call.arguments) ? call.arguments : original;
  // The complete input the host will run: every key of the original, with the granted changes.
  const updatedInput = fillBack(original, original, changed);
  if (jsonEqual(updatedInput, original)) return {};
  // No permissionDecision: the rewrite applies without one, and `allow` would skip the prompt.
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput } };
}

function permissionAnswer(answer: Record<string, unknown>): Record<string, unknown> {
  // `{action: "continue"}` (no approve mode, not granted, open failure): no verdict.
  if (!Object.hasOwn(answer, 'approved')) return {};
  if (answer.approved === true) {
    return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
  }
  const message =
    typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : 'denied by hook';
  return {
    hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message } },
  };
}

function postToolAnswer(
  request: Extract<HookRequest, { kind: 'call' }>,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  const envelope = isPlainObject(answer.result) ? answer.result : undefined;
  const inner = envelope && isPlainObject(envelope.result) ? envelope.result : undefined;
  if (!inner || typeof inner.for_llm !== 'string') return {};
  if (inner.for_llm === outputText(request.toolResponse)) return {};
  const updatedToolOutput = withText(request.toolResponse, inner.for_llm);
  if (updatedToolOutput === undefined) return {};
  return { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput } };
}
