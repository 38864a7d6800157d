import { bridge } from './bridge.js';
import { checkConfig } from './check-config.js';
import type { Command } from './command.js';
import { hermesHook } from './hermes-hook.js';
import { init } from './init.js';
import { keygen } from './keygen.js';
import { serve } from './serve.js';
import { setup } from './setup.js';
import { token } from './token.js';

/**
 * Every `hookgate` command, in the order `hookgate --help` lists them. To add one: a file in this
 * folder exporting `defineCommand({...})`, and its name in this list.
 */
// `any`: each command has its own flag types.
export const commands: readonly Command<any>[] = [
  serve,
  token,
  checkConfig,
  bridge,
  hermesHook,
  setup,
  keygen,
  init,
];
