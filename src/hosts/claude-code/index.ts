/**
 * The Claude Code dialect: Claude Code's HTTP hooks onto the hook's PicoClaw methods and back.
 * See docs/hosts/claude-code.md for the whole mapping.
 */
export { answeredLabel } from './answered.js';
export { toHostAnswer } from './response.js';
export {
  CALL_EVENTS,
  type CallEvent,
  type HookRequest,
  type RequestOptions,
  toHookRequest,
  toolName,
} from './request.js';

/** The dialect's label in audit lines and describe. */
export const DIALECT = 'claude-code';
