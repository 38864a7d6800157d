import type { ShimEvents } from '../command/shim-entries.js';

/**
 * A user-level hook file for Copilot CLI (`~/.copilot/hooks/<name>.json`): the only place its
 * hooks run in `-p` whatever the folder (repo-level `.github/hooks/` are skipped in a folder not
 * trusted). Copilot has no separate approval event here: preToolUse carries the approval too.
 */
export function copilotHooksJson(events: ShimEvents): Record<string, unknown> {
  const hooks: Record<string, unknown[]> = {};
  if (events.beforeTool)
    hooks.preToolUse = [
      { type: 'command', bash: events.beforeTool.command, timeoutSec: events.beforeTool.hostTimeoutS },
    ];
  if (events.afterTool)
    hooks.postToolUse = [
      { type: 'command', bash: events.afterTool.command, timeoutSec: events.afterTool.hostTimeoutS },
    ];
  return { version: 1, hooks };
}
