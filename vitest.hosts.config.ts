/**
 * The real-host suites: test/real-hosts/<host>/** drive the hosts' real binaries (PicoClaw, Claude Code,
 * OpenClaw, Hermes, Codex, Copilot CLI, Gemini CLI) against a gateway on 127.0.0.1. They need the hosts installed first
 * (`bash scripts/hosts/install.sh`, into a cache outside the repo); a suite whose host is not
 * installed fails under CI and is skipped, with the reason, elsewhere.
 *
 *   npm run test:hosts
 */
import { defineConfig } from 'vitest/config';
import SkipReporter from './test/helpers/skip-reporter.js';

const results = process.env.HOOKGATE_TEST_RESULTS;

export default defineConfig({
  test: {
    include: ['test/real-hosts/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Each host is a heavy process; one suite at a time on two cores.
    maxWorkers: 1,
    fileParallelism: false,
    // Every skipped test is listed after the run with why it skipped (test/helpers/skip-reporter.ts);
    // CI collects counts from a JSON report next to the usual output.
    reporters: [
      'default',
      new SkipReporter(),
      ...(results ? [['json', { outputFile: `${results}/hosts.json` }] as const] : []),
    ],
  },
});
