#!/usr/bin/env node
// The development launcher: runs the TypeScript sources through tsx (a devDependency), so the tests
// and a clone need no build step. The installed `hookgate` command is the compiled
// dist/src/node/cli/bin.js (package.json "bin"); this file is not in the package.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/node/cli/cli.ts');
process.exitCode = await main(process.argv.slice(2));
