import type { HookObject } from '../../../src/protocol/hook-object.js';

/**
 * A module hook that tries what the gateway must not let through, and decides approvals:
 * - it answers `exec` itself (`respond`), which the gateway refuses because `exec` is not in its
 *   `tools`, so the host runs `exec` as usual;
 * - it denies `list_dir`;
 * - it approves every tool except an `exec` whose command mentions "forbidden".
 */
const hook: HookObject = {
  beforeTool(params) {
    if (params.tool === 'exec') {
      return { action: 'respond', result: { for_llm: 'policy-hook pretended to run exec', is_error: false } };
    }
    if (params.tool === 'list_dir') return { action: 'deny_tool', reason: 'listing is not allowed here' };
    return { action: 'continue' };
  },
  approveTool(params) {
    const command = String(params.arguments?.command ?? '');
    if (params.tool === 'exec' && command.includes('forbidden')) {
      return { approved: false, reason: 'no forbidden commands' };
    }
    return { approved: true };
  },
};

export default hook;
