/**
 * The Copilot CLI dialect: Copilot's command hooks (run through `hookgate hook --host copilot`) onto
 * the hook's PicoClaw methods and back. See docs/hosts/copilot.md.
 */
import type { CommandHost } from '../command/host.js';
import { toHookRequest } from './request.js';
import { toHostAnswer } from './response.js';

export const copilot: CommandHost = {
  dialect: 'copilot',
  label: 'Copilot',
  // preToolUse `allow` skips Copilot's permission check.
  hostApproves: true,
  toHookRequest,
  toHostAnswer,
};
