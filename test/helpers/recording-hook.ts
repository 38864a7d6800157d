import type { HookCallContext, HookObject } from '../../src/protocol/hook-object.js';

/**
 * A module hook for tests: records what it was sent and answers with whatever the test scripted.
 * It runs in the test's own process (a `module` backend), so tests reach it through globalThis.
 */
export interface Recorder {
  calls: { method: string; params: any }[];
  answer: (method: string, params: any, ctx: HookCallContext) => unknown;
}

const g = globalThis as unknown as { __hookgateRecorder?: Recorder };

export function recorder(): Recorder {
  g.__hookgateRecorder ??= { calls: [], answer: () => ({ action: 'continue' }) };
  return g.__hookgateRecorder;
}

const record = (method: string) => async (params: any, ctx: HookCallContext) => {
  const r = recorder();
  r.calls.push({ method, params });
  return r.answer(method, params, ctx);
};

const hook: HookObject = {
  beforeLlm: record('hook.before_llm'),
  afterLlm: record('hook.after_llm'),
  beforeTool: record('hook.before_tool'),
  afterTool: record('hook.after_tool'),
  approveTool: record('hook.approve_tool'),
  onEvent: async (params, ctx) => {
    recorder().calls.push({ method: ctx.method, params });
  },
};

export default hook;
