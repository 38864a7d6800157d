import { existsSync } from 'node:fs';
import type { HookObject } from '../../src/protocol/hook-object.js';

/**
 * A module hook that holds a call to the tool `held` until the file named by its
 * `arguments.release` exists, so a test decides when the call ends (no sleep to outlast). It writes
 * `held-hook: started` to stderr as such a call starts. Other tools are answered at once.
 */
const released = (file: string) =>
  new Promise<void>((resolve) => {
    const check = () => (existsSync(file) ? resolve() : setTimeout(check, 10));
    check();
  });

const hook: HookObject = {
  async beforeTool(params) {
    const release = (params.arguments as { release?: unknown } | undefined)?.release;
    if (params.tool === 'held' && typeof release === 'string') {
      process.stderr.write('held-hook: started\n');
      await released(release);
    }
    return { action: 'respond', result: { for_llm: `answered ${params.tool}` } };
  },
};

export default hook;
