import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers/gateway.js';

/**
 * `hookgate` as the command-hook hosts (Codex, Copilot, Gemini) run it here: this checkout through
 * tsx, every part by absolute path, so it runs from any working directory.
 */
export const HOOKGATE_ARGV = [
  process.execPath,
  '--import',
  pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href,
  join(REPO, 'src/node/cli/bin.ts'),
];
