import { defineConfig } from 'vitest/config';
import SkipReporter from './test/helpers/skip-reporter.js';

const results = process.env.HOOKGATE_TEST_RESULTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // workerd and the real hosts have their own configs (vitest.workers.config.ts, vitest.hosts.config.ts).
    exclude: ['test/worker/**', 'test/real-hosts/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn real processes and sockets; two cores are all CI has.
    maxWorkers: 2,
    // expect.poll waits for an event; its deadline is an upper bound a loaded machine never
    // comes near (the default, 1 s, it can).
    expect: { poll: { timeout: 10_000 } },
    // Every skipped test is listed after the run with why it skipped (test/helpers/skip-reporter.ts);
    // CI collects counts from a JSON report next to the usual output.
    reporters: [
      'default',
      new SkipReporter(),
      ...(results ? [['json', { outputFile: `${results}/node.json` }] as const] : []),
    ],
  },
});
