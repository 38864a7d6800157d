#!/usr/bin/env node
// `npm test`: the fast suite (vitest.config.ts), then the workerd suite (vitest.workers.config.ts),
// each whatever the other's result, so one red suite never hides the other. Exits non-zero when
// either failed (or could not start), and says which.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');

const suites = [
  { name: 'fast suite (vitest.config.ts)', args: ['run'] },
  { name: 'workerd suite (vitest.workers.config.ts)', args: ['run', '-c', 'vitest.workers.config.ts'] },
];

const failed = [];
for (const suite of suites) {
  const r = spawnSync(process.execPath, [vitest, ...suite.args], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed.push(`${suite.name}: ${r.error?.message ?? `exit ${r.status ?? r.signal}`}`);
}
if (failed.length > 0) {
  console.error(`\nnpm test: ${failed.length} of ${suites.length} suites failed:\n  ${failed.join('\n  ')}`);
  process.exit(1);
}
