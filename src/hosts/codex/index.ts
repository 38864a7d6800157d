/**
 * The Codex CLI dialect: Codex's command hooks (run through `hookgate hook --host codex`) onto the
 * hook's PicoClaw methods and back. See docs/hosts/codex.md.
 */
import type { CommandHost } from '../command/host.js';
import { toHookRequest } from './request.js';
import { toHostAnswer } from './response.js';

export const codex: CommandHost = {
  dialect: 'codex',
  label: 'Codex',
  // PermissionRequest `allow` skips Codex's approval.
  hostApproves: true,
  toHookRequest,
  toHostAnswer,
};
