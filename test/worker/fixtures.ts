/**
 * The Worker test setup, shared by vitest.workers.config.ts (Node: it becomes the miniflare
 * bindings) and the tests (workerd: to sign tokens). Plain data only.
 */

export const ACME_KEY = 'acme-hs256-key-0123456789-abcdefghijklmnopqrstuv';
export const OTHER_KEY = 'other-hs256-key-0123456789-abcdefghijklmnopqrstu';
export const HOOK_MODULE = 'test/worker/hooks/tool-hook.ts';

/** HOOKGATE_CONFIG: key secrets are `env:` references to the bindings below. */
export const CONFIG = {
  server: { log_level: 'debug', max_body_bytes: 65536 },
  tenants: {
    acme: {
      auth: { audience: 'hookgate', keys: [{ kid: 'acme-1', alg: 'HS256', secret: 'env:ACME_KEY' }] },
      hooks: {
        tools: {
          backend: { type: 'module', module: HOOK_MODULE },
          modes: ['llm', 'tool'],
          tools: ['get_weather'],
          timeout_ms: 2000,
        },
      },
    },
    other: {
      auth: { audience: 'hookgate', keys: [{ kid: 'other-1', alg: 'HS256', secret: 'env:OTHER_KEY' }] },
      hooks: {
        tools: { backend: { type: 'module', module: HOOK_MODULE }, tools: ['get_weather'] },
      },
    },
  },
};

export const BINDINGS = {
  HOOKGATE_CONFIG: JSON.stringify(CONFIG),
  ACME_KEY,
  OTHER_KEY,
};
