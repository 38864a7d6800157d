import type { ShimEvents } from '../command/shim-entries.js';

/**
 * The `hooks` block of Gemini CLI's `settings.json` (`~/.gemini/` or the project's `.gemini/`),
 * every tool (`matcher` is a regular expression), the timeout in milliseconds. Headless runs also
 * need `--skip-trust` and an approval mode that offers the shell tool (`--approval-mode yolo`).
 */
export function geminiSettings(events: ShimEvents, name: string): Record<string, unknown> {
  const hooks: Record<string, unknown[]> = {};
  const group = (command: string, timeoutS: number) => [
    { matcher: '.*', hooks: [{ type: 'command', name, command, timeout: timeoutS * 1000 }] },
  ];
  if (events.beforeTool) hooks.BeforeTool = group(events.beforeTool.command, events.beforeTool.hostTimeoutS);
  if (events.afterTool) hooks.AfterTool = group(events.afterTool.command, events.afterTool.hostTimeoutS);
  return { hooks };
}
