import type { ShimHost } from '../command/shim.js';

/**
 * Codex blocks on exit 2 and shows the model the stderr text (`Command blocked by PreToolUse hook:
 * <reason>`); every other failure of a hook (exit 1, bad output, its timeout) runs the tool.
 */
export const codexShim: ShimHost = {
  dialect: 'codex',
  hostTimeoutMs: 600_000,
  blocked: (reason) => ({ code: 2, stdout: '', stderr: `${reason}\n` }),
};
