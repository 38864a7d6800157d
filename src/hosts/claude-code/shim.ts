import type { ShimHost } from '../command/shim.js';

/**
 * Claude Code's **command** hooks (`type: "command"`), for where its HTTP hooks cannot reach the
 * gateway: the stdin is the HTTP hook's body, so `hookgate hook --host claude-code-command` posts
 * it to the Claude Code route. Claude Code blocks on exit 2 and shows the model the stderr text;
 * its command hooks time out after 60 s by default.
 */
export const claudeCodeCommandShim: ShimHost = {
  dialect: 'claude-code-command',
  route: 'claude-code',
  hostTimeoutMs: 60_000,
  blocked: (reason) => ({ code: 2, stdout: '', stderr: `${reason}\n` }),
};
