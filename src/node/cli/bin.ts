#!/usr/bin/env node
// The `hookgate` executable (package.json "bin", compiled to dist/src/node/cli/bin.js).
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
