import type { HookObject } from '../../src/protocol/hook-object.js';

/** A module hook that answers get_weather, and takes its time for a tool named `slow`. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const hook: HookObject = {
  async beforeTool(params) {
    if (params.tool === 'slow') await sleep(3000);
    return { action: 'respond', result: { for_llm: `answered ${params.tool}` } };
  },
  async approveTool(params) {
    if (params.tool === 'slow') await sleep(3000);
    return { approved: true };
  },
};

export default hook;
