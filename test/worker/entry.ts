/**
 * The Worker under test (vitest.workers.config.ts `main`): the production createWorker with the
 * production registry plus the test hook, and its log lines kept for assertions. The tests import
 * this module and get the very instance SELF/exports.default serves.
 */
import { modules } from '../../src/worker/modules.js';
import { createWorker, type WorkerEnv } from '../../src/worker/worker.js';
import { HOOK_MODULE } from './fixtures.js';

export { TenantLimiter } from '../../src/worker/limiter.js';

export const logLines: string[] = [];

export const testModules = { ...modules, [HOOK_MODULE]: () => import('./hooks/tool-hook.js') };

export default createWorker({
  modules: testModules,
  sink: (line) => {
    logLines.push(line);
  },
}) satisfies ExportedHandler<WorkerEnv>;
