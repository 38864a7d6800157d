/**
 * A tenant of its own (so no other test's calls count against it) whose limit only a shared
 * limiter keeps: a burst of 3, then one call per 1000 s. Plain data, for the test entry's
 * limited gateways and their test.
 */
import { BINDINGS, CONFIG } from './fixtures.js';

export const LIMITED_TENANT = 'limited';

export const LIMITED_BINDINGS = {
  ...BINDINGS,
  HOOKGATE_CONFIG: JSON.stringify({
    server: CONFIG.server,
    tenants: {
      [LIMITED_TENANT]: {
        ...CONFIG.tenants.acme,
        limits: { calls_per_second: 0.001, burst: 3 },
      },
    },
  }),
};
