import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/worker/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn real processes and sockets; two cores are all CI has.
    maxWorkers: 2,
  },
});
