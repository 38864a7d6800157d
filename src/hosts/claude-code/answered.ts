import { isPlainObject } from '../../policy/equal.js';

/**
 * What Claude Code was sent, in a few words, for an audit line's `answered`: its decision fields
 * and the names of what else it carries, never their contents. `{}` is no decision (Claude Code
 * goes on as it would without the hook: it asks, or runs the tool). The PicoClaw answer behind it
 * would mislead: a refused approval is `continue` there, and Claude Code gets `{}`.
 */
export function answeredLabel(answer: Record<string, unknown>): string {
  const parts: string[] = [];
  if (answer.continue === false) parts.push('continue:false');
  if (typeof answer.decision === 'string') parts.push(`decision:${answer.decision}`);
  const out = answer.hookSpecificOutput;
  if (isPlainObject(out)) {
    if (typeof out.permissionDecision === 'string')
      parts.push(`permissionDecision:${out.permissionDecision}`);
    const decision = out.decision;
    if (isPlainObject(decision) && typeof decision.behavior === 'string') {
      parts.push(`behavior:${decision.behavior}`);
      if (Object.hasOwn(decision, 'updatedInput')) parts.push('updatedInput');
    }
    for (const field of ['updatedInput', 'updatedToolOutput', 'additionalContext']) {
      if (Object.hasOwn(out, field)) parts.push(field);
    }
  }
  return parts.length === 0 ? '{}' : parts.join(' ');
}
