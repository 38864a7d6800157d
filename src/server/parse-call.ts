import type { HookRuntime } from '../config/runtime.js';
import { type ParseOptions, type ParseOutcome, parseMessage } from '../protocol/jsonrpc.js';

const LAZY: ParseOptions = { lazyParams: true };

/**
 * A message on a native route, parsed for the hook it is for. A hook in another process (stdio,
 * http) or no hook at all (rules) gets a large request's params lazily (core/lazy-params.ts): what
 * the hook is sent is their text, and only what a check reads is parsed. A module hook reads every
 * member of its own copy, so it gets them parsed at once.
 */
export function parseCallMessage(text: string, hook: HookRuntime): ParseOutcome {
  return parseMessage(text, hook.backend.type === 'module' ? undefined : LAZY);
}
