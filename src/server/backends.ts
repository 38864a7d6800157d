import { HttpBackend } from '../backends/http.js';
import { ModuleBackend } from '../backends/module.js';
import type { BackendContext, HookBackend } from '../backends/types.js';
import { ConfigError } from '../config/errors.js';
import type { GatewayConfig, HookRuntime } from '../config/runtime.js';
import { type HookObject, isHookObject } from '../protocol/hook-object.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

export interface BackendFactories {
  /** Loads a `module` backend's hook object (Node: dynamic import; Workers: a static registry). */
  loadModule(spec: string): Promise<unknown>;
  /** Hosts a `stdio` backend; absent on runtimes without processes. */
  createStdio?(hook: HookRuntime, ctx: BackendContext): HookBackend;
  fetch?: typeof fetch;
}

/**
 * Builds one backend per configured hook, failing at load (with the config path) for a module
 * that is not a hook object or a backend type this runtime cannot host.
 */
export async function buildBackends(
  config: GatewayConfig,
  f: BackendFactories,
  log: Logger,
  metrics?: Metrics,
): Promise<Map<HookRuntime, HookBackend>> {
  const out = new Map<HookRuntime, HookBackend>();
  for (const tenant of config.tenants.values()) {
    for (const hook of tenant.hooks.values()) {
      const path = `tenants.${tenant.name}.hooks.${hook.name}.backend`;
      const ctx: BackendContext = { tenant: tenant.name, hook: hook.name, modes: [...hook.modeList], log };
      if (metrics) {
        const labels = { tenant: tenant.name, hook: hook.name };
        const stderrDropped = metrics.counter('hookgate_hook_stderr_dropped_lines_total', labels);
        ctx.count = (counter, by) => {
          if (counter === 'hook_stderr_dropped_lines') stderrDropped(by);
        };
      }
      const b = hook.backend;
      if (b.type === 'module') {
        let mod: unknown;
        try {
          mod = await f.loadModule(b.module);
        } catch (err) {
          throw new ConfigError([
            { path: `${path}.module`, message: `cannot load: ${(err as Error).message}` },
          ]);
        }
        const obj = (mod as { default?: unknown })?.default ?? mod;
        if (!isHookObject(obj)) {
          throw new ConfigError([{ path: `${path}.module`, message: 'default export is not a hook object' }]);
        }
        out.set(hook, new ModuleBackend(obj as HookObject, ctx));
      } else if (b.type === 'http') {
        try {
          out.set(
            hook,
            new HttpBackend(
              { url: b.url, secrets: b.secrets, timeoutMs: b.timeout_ms ?? hook.timeoutMs, fetch: f.fetch },
              ctx,
            ),
          );
        } catch (err) {
          throw new ConfigError([{ path: `${path}.secret`, message: (err as Error).message }]);
        }
      } else {
        if (!f.createStdio)
          throw new ConfigError([{ path: `${path}.type`, message: 'stdio backends need the Node runtime' }]);
        out.set(hook, f.createStdio(hook, ctx));
      }
    }
  }
  return out;
}
