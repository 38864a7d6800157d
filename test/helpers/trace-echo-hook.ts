/**
 * An SDK hook that answers every before_tool with a denial whose reason is the trace context it
 * was given (`ctx.traceparent`, or "none"): the same file runs as a `module` hook and, started by
 * node --import tsx, as a `stdio` one, so a test reads what each kind of hook sees.
 */
import type { HookObject } from '../../src/sdk/index.js';
import { isMainModule, serveStdio } from '../../src/sdk/stdio.js';

const hook: HookObject = {
  name: 'trace-echo',
  beforeTool: (_params, ctx) => ({ action: 'deny_tool', reason: ctx.traceparent ?? 'none' }),
};

export default hook;

if (isMainModule(import.meta.url)) serveStdio(hook);
