import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/**
 * Run from the sources (a clone, under tsx) the demo loads examples/weather-hook.ts; run from the
 * package it loads the compiled dist/examples/weather-hook.js, which sits at the same place
 * relative to this file: plain Node cannot import TypeScript from node_modules.
 */
const DEMO_HOOK_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/**
 * The embedded default config of `npm start`: tenant `demo` with two hooks: `weather`, an SDK hook
 * that injects and answers a `get_weather` plugin tool, and `guard`, a hook made only of rules. The HS256 secret is fresh per start unless
 * HOOKGATE_DEMO_SECRET is set, so a printed dev token is only good for this process.
 */
export function demoConfig(
  secret = process.env.HOOKGATE_DEMO_SECRET ?? randomBytes(32).toString('base64url'),
) {
  return {
    document: {
      server: { host: '127.0.0.1', port: 8787 },
      tenants: {
        demo: {
          auth: { audience: 'hookgate', keys: [{ kid: 'demo-1', alg: 'HS256', secret }] },
          hooks: {
            weather: {
              backend: { type: 'module', module: `examples/weather-hook${DEMO_HOOK_EXTENSION}` },
              modes: ['llm', 'tool'],
              tools: ['get_weather'],
              on_failure: 'open',
              timeout_ms: 4000,
            },
            // A hook made only of rules: no code, no process; one rule for every host's shell tool.
            guard: {
              backend: { type: 'rules' },
              modes: ['tool'],
              rules: [
                {
                  name: 'no-rm-rf',
                  kind: 'shell',
                  when: 'call.command.matches("rm\\\\s+-[a-zA-Z]*([rR][a-zA-Z]*f|f[a-zA-Z]*[rR])")',
                  action: 'deny',
                  reason: 'rm -rf is not allowed',
                },
              ],
            },
          },
        },
      },
    },
    /** The repository root (or `dist/` in the package): where `examples/` lives. */
    baseDir: fileURLToPath(new URL('../..', import.meta.url)),
  };
}
