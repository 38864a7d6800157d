import {
  BRIDGE_FLAGS,
  BRIDGE_REFUSED_FLAGS,
  bridgeOptionsFromFlags,
  USAGE,
} from '../../../bridge/options.js';
import { defineCommand } from './command.js';

export const bridge = defineCommand({
  name: 'bridge',
  help: USAGE,
  flags: BRIDGE_FLAGS,
  refuse: BRIDGE_REFUSED_FLAGS,
  async run({ values }, io) {
    const options = bridgeOptionsFromFlags(values, io.env);
    // Loaded only here: `serve` and the other commands never need the bridge's transports.
    const { runBridge } = await import('../../../bridge/index.js');
    const handle = await runBridge({ ...options, guardProcess: true });
    return handle.done;
  },
});
