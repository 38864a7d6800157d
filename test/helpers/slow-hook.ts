import type { HookObject } from '../../src/protocol/hook-object.js';

/**
 * A module hook that answers get_weather, and takes its time for a tool named `slow`: the call's
 * `arguments.ms`, else 3 s. It writes `slow-hook: started` to stderr as a slow call starts, for
 * tests that act while one is in progress.
 */
const slow = (args: unknown) => {
  process.stderr.write('slow-hook: started\n');
  const ms = (args as { ms?: unknown } | undefined)?.ms;
  return new Promise((r) => setTimeout(r, typeof ms === 'number' ? ms : 3000));
};

const hook: HookObject = {
  async beforeTool(params) {
    if (params.tool === 'slow') await slow(params.arguments);
    return { action: 'respond', result: { for_llm: `answered ${params.tool}` } };
  },
  async approveTool(params) {
    if (params.tool === 'slow') await slow(params.arguments);
    return { approved: true };
  },
};

export default hook;
