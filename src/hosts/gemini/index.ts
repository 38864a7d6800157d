/**
 * The Gemini CLI dialect: Gemini's command hooks (run through `hookgate hook --host gemini`) onto
 * the hook's PicoClaw methods and back. See docs/hosts/gemini.md.
 */
import type { CommandHost } from '../command/host.js';
import { toHookRequest } from './request.js';
import { toHostAnswer } from './response.js';

export const gemini: CommandHost = {
  dialect: 'gemini',
  label: 'Gemini CLI',
  // No verdict hookgate sends skips an approval of Gemini's: Gemini has none that does (a
  // BeforeTool `allow` leaves its confirmation, seen on 0.61.0's interactive screen).
  hostApproves: false,
  toHookRequest,
  toHostAnswer,
};
