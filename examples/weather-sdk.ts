/**
 * The weather hook as a PicoClaw stdio hook:
 *
 *   npx tsx examples/weather-sdk.ts     # hooks.processes.<name>.command in PicoClaw's config
 *
 * Its default export is the hook object, so a gateway `module` backend can load this file as is.
 */
import { isMainModule, serveStdio } from '../src/sdk/stdio.js';
import hook from './weather-hook.js';

export default hook;

if (isMainModule(import.meta.url)) serveStdio(hook);
