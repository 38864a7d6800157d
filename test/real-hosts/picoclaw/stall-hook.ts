import { writeFileSync } from 'node:fs';
import type { HookObject } from '../../../src/protocol/hook-object.js';

/**
 * A module hook that never answers in time: it marks the file named by HOOKGATE_TEST_STALL_MARK
 * when a call reaches it (so a test knows the call is in flight), then waits far past every deadline.
 */
const stall = (method: string) => {
  const mark = process.env.HOOKGATE_TEST_STALL_MARK;
  if (mark) writeFileSync(mark, method);
  return new Promise(() => undefined);
};

const hook: HookObject = {
  beforeTool: () => stall('hook.before_tool'),
  approveTool: () => stall('hook.approve_tool'),
};

export default hook;
