import type { ShimHost } from '../command/shim.js';

/**
 * Gemini CLI blocks on exit 2 and shows the model the stderr text (`Tool execution blocked:
 * <reason>`); exit 1, bad output and its timeout run the tool.
 */
export const geminiShim: ShimHost = {
  dialect: 'gemini',
  hostTimeoutMs: 60_000,
  blocked: (reason) => ({ code: 2, stdout: '', stderr: `${reason}\n` }),
};
