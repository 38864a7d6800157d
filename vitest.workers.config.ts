/**
 * The workerd test suite: test/worker/** runs inside the Workers runtime through
 * @cloudflare/vitest-plugin, against the Worker built by src/worker/worker.ts.
 *
 *   npx vitest run -c vitest.workers.config.ts
 */
import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import SkipReporter from './test/helpers/skip-reporter.js';
import { BINDINGS } from './test/worker/fixtures.js';

// Offline and quiet: without these, miniflare fetches request.cf data from the network (and
// hangs here without one) and wrangler sends telemetry.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

const results = process.env.HOOKGATE_TEST_RESULTS;

export default defineConfig({
  plugins: [
    cloudflareTest({
      main: './test/worker/entry.ts',
      // compatibility_date (at most the date of the workerd this pool ships) and flags come from
      // the same wrangler.toml that deploys the gateway.
      wrangler: { configPath: './wrangler.toml' },
      miniflare: { bindings: BINDINGS },
    }),
  ],
  test: {
    include: ['test/worker/**/*.test.ts'],
    testTimeout: 20_000,
    // A suite's first request builds the gateway in workerd: seconds on a loaded machine, not 10.
    hookTimeout: 60_000,
    // expect.poll waits for an event; its deadline is an upper bound a loaded machine never
    // comes near (the default, 1 s, it can).
    expect: { poll: { timeout: 10_000 } },
    // Every skipped test is listed after the run with why it skipped (test/helpers/skip-reporter.ts);
    // CI collects counts from a JSON report next to the usual output.
    reporters: [
      'default',
      new SkipReporter(),
      ...(results ? [['json', { outputFile: `${results}/workerd.json` }] as const] : []),
    ],
  },
});
