/**
 * The OpenClaw dialect: OpenClaw's plugin hooks (forwarded by the hookgate plugin) onto the hook's
 * PicoClaw methods and back. See docs/hosts/openclaw.md for the whole mapping.
 */
export {
  approvalAnswer,
  errorResult,
  type OpenClawToolResult,
  toHostAnswer,
  toToolResult,
} from './response.js';
export {
  CALL_HOOKS,
  type CallHook,
  EXECUTE_TOOL,
  type HookRequest,
  type RequestOptions,
  toHookRequest,
} from './request.js';

/** The dialect's label in audit lines and describe. */
export const DIALECT = 'openclaw';
