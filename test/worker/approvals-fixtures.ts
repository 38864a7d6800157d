/**
 * The approval tests' gateway config: tenant acme's `guard` hook asks a person before every tool
 * call (a rule's ask_human), `hasty` does the same with a deadline a test can wait out. Plain data,
 * shared by the test entry's gateways and the tests.
 */
import { BINDINGS, CONFIG, HOOK_MODULE } from './fixtures.js';

const ASK = { name: 'a-person-decides', tool: '*', action: 'ask_human', reason: 'every call needs a person' };
const hook = { backend: { type: 'module', module: HOOK_MODULE }, modes: ['tool'], on_failure: 'closed' };

export const HASTY_TIMEOUT_MS = 3_000;

export const APPROVALS_CONFIG = {
  server: CONFIG.server,
  tenants: {
    acme: {
      auth: CONFIG.tenants.acme.auth,
      hooks: {
        guard: { ...hook, rules: [ASK], timeout_ms: 60_000 },
        hasty: { ...hook, rules: [ASK], timeout_ms: HASTY_TIMEOUT_MS },
      },
    },
    other: CONFIG.tenants.other,
  },
};

/** The bindings but HOOKGATE_CONFIG (and the Durable Object namespaces, which come from wrangler.toml). */
export const APPROVALS_BINDINGS = { ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(APPROVALS_CONFIG) };
