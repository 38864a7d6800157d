/**
 * The hookgate SDK for hook authors: define a hook once, serve it anywhere. Runtime-neutral; the
 * stdio server is in `./stdio.js` (Node only), so Worker bundles never pull node code.
 */
export {
  type HookCallContext,
  type HookDefinition,
  type HookObject,
  type HookReply,
  type HookTool,
  type ToolCallContext,
  type ToolResult,
  type ToolReturn,
  defineHook,
  defineTool,
  dispatchToHook,
  toToolResult,
} from './define-hook.js';
export { type FetchHandler, type FetchHandlerOptions, toFetchHandler } from './fetch-handler.js';
export type { ApprovalResult, InterceptorResult } from '../protocol/methods.js';
/** The zod hookgate's tool schemas are read with: `import { defineHook, z } from 'hookgate/sdk'`. */
export { z } from 'zod';
