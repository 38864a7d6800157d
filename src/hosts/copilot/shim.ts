import type { ShimHost } from '../command/shim.js';

/** postToolUse's stdin has a top-level `toolResult` (Copilot names no event); anything else may be a call. */
function isAfterTheTool(input: string): boolean {
  try {
    const v: unknown = JSON.parse(input);
    return typeof v === 'object' && v !== null && Object.hasOwn(v, 'toolResult');
  } catch {
    return false;
  }
}

/**
 * Copilot CLI blocks on exit 2 but shows the model only "hook exited with code 2", so a block is a
 * JSON deny on stdout (`Denied by preToolUse hook: <reason>`). postToolUse comes after the tool
 * ran: there is nothing left to block.
 */
export const copilotShim: ShimHost = {
  dialect: 'copilot',
  hostTimeoutMs: 30_000,
  blocked(reason, input) {
    if (isAfterTheTool(input)) return { code: 0, stdout: '', stderr: `${reason}\n` };
    const deny = { permissionDecision: 'deny', permissionDecisionReason: reason };
    return { code: 0, stdout: `${JSON.stringify(deny)}\n`, stderr: `${reason}\n` };
  },
};
