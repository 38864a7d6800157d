/**
 * `hookgate`: what most users need, runtime-neutral (no `node:*`): the SDK for writing hooks, and
 * the error base class every hookgate error extends. The gateway itself is `hookgate/server`
 * (web-standard) and `hookgate/node` (Node); the stdio hook server is `hookgate/sdk/stdio`.
 */
export * from './sdk/index.js';
export { HookgateError } from './lib/errors.js';
export { ConfigError, type ConfigIssue } from './config/errors.js';
