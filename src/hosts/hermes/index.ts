/**
 * The Hermes dialect: Hermes Agent's shell hooks (JSON on stdin, JSON on stdout) onto the hook's
 * PicoClaw methods and back. See docs/hosts/hermes.md for the whole mapping.
 */
export { toHostAnswer } from './response.js';
export {
  CALL_EVENTS,
  type CallEvent,
  type HookRequest,
  hermesMcpServerName,
  type RequestOptions,
  toHookRequest,
} from './request.js';

/** The dialect's label in audit lines and describe. */
export const DIALECT = 'hermes';
