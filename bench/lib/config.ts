/**
 * The gateway config the benchmark runs: one tenant, the weather SDK hook twice (as an in-process
 * `module` and as a hosted `stdio` process), log level `warn`, a real HS256 key. The secret comes
 * from the environment (BENCH_HS256_SECRET), never from argv.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { compileConfig } from '../../src/config/compile.js';
import type { GatewayConfig } from '../../src/config/runtime.js';
import { signDevToken } from '../../src/node/token.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SECRET_ENV = 'BENCH_HS256_SECRET';
export const TENANT = 'bench';
export const MODULE_HOOK = 'weather';
export const STDIO_HOOK = 'weather_stdio';

/**
 * Node flags for every weather hook process the bench starts: the stdio floor's, the chain
 * floor's and the gateway's stdio hook. They are the same program on both sides of a ratio, so
 * they run under the same flags. The default keeps V8's young generation at 4 MB semi-spaces:
 * with the default 16 MB, a hook that sat idle past V8's memory reducer can run full collection
 * after full collection for as long as the load lasts (docs/performance.md, "1, the hooks"),
 * which made either side of the ratio the slow one by luck of timing. `npm run bench --
 * --hook-node-flags ""` runs them with Node's defaults (bench/run.ts passes it on in
 * HOOK_NODE_FLAGS_ENV).
 */
export const HOOK_NODE_FLAGS_ENV = 'BENCH_HOOK_NODE_FLAGS';

export function hookNodeFlags(): string[] {
  return (process.env[HOOK_NODE_FLAGS_ENV] ?? '--max-semi-space-size=4').split(' ').filter(Boolean);
}

/** The weather SDK hook as a stdio process, with `hookNodeFlags()`. */
export function weatherHookArgs(): string[] {
  return [...hookNodeFlags(), '--import', 'tsx', 'examples/weather-sdk.ts'];
}

export function freshSecret(): string {
  return randomBytes(32).toString('base64url');
}

export interface GatewayVariant {
  /** `server.token_cache_size`; undefined keeps the default. */
  tokenCacheSize?: number;
  /** Also host the weather hook as a stdio process. */
  stdio: boolean;
}

export function configDocument(variant: GatewayVariant): Record<string, unknown> {
  const hookBase = {
    modes: ['llm', 'tool'],
    tools: ['get_weather'],
    // The hook sees the whole conversation, as the stdio floor's hook does: same payload both ways.
    grants: { conversation_access: true },
    on_failure: 'open',
    timeout_ms: 4000,
  };
  const hooks: Record<string, unknown> = {
    [MODULE_HOOK]: { backend: { type: 'module', module: 'examples/weather-sdk.ts' }, ...hookBase },
  };
  if (variant.stdio) {
    hooks[STDIO_HOOK] = {
      backend: {
        type: 'stdio',
        command: [process.execPath, ...weatherHookArgs()],
      },
      ...hookBase,
    };
  }
  const server: Record<string, unknown> = { host: '127.0.0.1', port: 0, log_level: 'warn' };
  if (variant.tokenCacheSize !== undefined) server.token_cache_size = variant.tokenCacheSize;
  return {
    server,
    tenants: {
      [TENANT]: {
        auth: { audience: 'hookgate', keys: [{ kid: 'bench-1', alg: 'HS256', secret: `env:${SECRET_ENV}` }] },
        hooks,
      },
    },
  };
}

export function compileBenchConfig(
  variant: GatewayVariant,
  env: NodeJS.ProcessEnv = process.env,
): GatewayConfig {
  return compileConfig(configDocument(variant), (ref) => {
    if (!ref.startsWith('env:')) return ref;
    const v = env[ref.slice(4)];
    if (v === undefined) throw new Error(`${ref} is not set`);
    return v;
  });
}

/** A real token, signed with the tenant's HS256 key, for both hooks. */
export async function benchToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const config = compileBenchConfig({ stdio: true }, env);
  const tenant = config.tenants.get(TENANT);
  if (!tenant) throw new Error('bench tenant missing');
  return signDevToken(tenant, { hooks: [MODULE_HOOK, STDIO_HOOK], ttlSeconds: 3600 });
}

export function hookPath(hook: string): string {
  return `/v1/tenants/${TENANT}/hooks/${hook}`;
}
