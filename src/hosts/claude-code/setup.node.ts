import type { HookRuntime } from '../../config/runtime.js';
import { hookRouteUrl, TOKEN_ENV } from '../shared/setup-common.node.js';

/**
 * Claude Code events that support HTTP hooks and carry nothing a hook could decide (SessionStart
 * takes no HTTP hooks). Observers get them as runtime events.
 */
const OBSERVED_EVENTS = [
  'PostToolUseFailure',
  'PostToolBatch',
  'PermissionDenied',
  'Notification',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'Stop',
  'SessionEnd',
] as const;

/** The events that guard an action; `onFailure: "block"` applies to them. */
const GUARDS = new Set(['PreToolUse', 'PermissionRequest', 'UserPromptSubmit']);

/**
 * The `.claude/settings.json` `hooks` block that sends a hookgate hook's events to its Claude Code
 * route. Only the events the hook's modes cover; `timeout` (seconds) above the hook's own deadline
 * so the gateway always answers first (Claude Code's default is 600 s); `onFailure: "block"` on the
 * guarding events when the hook fails closed or decides approvals, since Claude Code otherwise
 * fails open on an unreachable gateway.
 */
export function claudeCodeSettings(hook: HookRuntime, baseUrl: string): { hooks: Record<string, unknown[]> } {
  const url = hookRouteUrl(baseUrl, hook, 'claude-code');
  const events: string[] = [];
  if (hook.modes.has('llm')) events.push('UserPromptSubmit');
  if (hook.modes.has('tool')) events.push('PreToolUse');
  if (hook.modes.has('approve')) events.push('PermissionRequest');
  if (hook.modes.has('tool')) events.push('PostToolUse');
  if (hook.modes.has('observe')) events.push(...OBSERVED_EVENTS);
  const block = hook.onFailure === 'closed' || hook.modes.has('approve');
  const hooks: Record<string, unknown[]> = {};
  for (const event of events) {
    const deadlineMs = event === 'PermissionRequest' ? hook.approvalTimeoutMs : hook.timeoutMs;
    const handler: Record<string, unknown> = {
      type: 'http',
      url,
      headers: { Authorization: `Bearer $${TOKEN_ENV}` },
      allowedEnvVars: [TOKEN_ENV],
      timeout: Math.ceil(deadlineMs / 1000) + 2,
    };
    if (block && GUARDS.has(event)) handler.onFailure = 'block';
    hooks[event] = [{ hooks: [handler] }];
  }
  return { hooks };
}
