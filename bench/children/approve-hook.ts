/**
 * A module hook that approves every tool it is asked about, for bench/policy-cost-workerd.ts: the
 * gateway's `approve_tools` (with or without conditions) is then what decides, as the policy-cost
 * figures measure. Runtime-neutral (no node:*): the bench bundles it into a Worker.
 */
import { defineHook } from '../../src/sdk/index.js';

export default defineHook({ name: 'approve-all', approveTool: () => true });
