import { HttpBackend } from '../backends/http.js';
import { ModuleBackend } from '../backends/module.js';
import { RulesBackend } from '../backends/rules.js';
import type { BackendContext, HookBackend } from '../backends/types.js';
import { type ConfigIssue, ConfigError } from '../config/errors.js';
import type { GatewayConfig, HookRuntime } from '../config/runtime.js';
import { type HookObject, hookObjectProblems, isHookObject } from '../protocol/hook-object.js';
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
 * that is not a hook object or a backend type this runtime cannot host. Every bad hook is reported,
 * not only the first.
 */
export async function buildBackends(
  config: GatewayConfig,
  f: BackendFactories,
  log: Logger,
  metrics?: Metrics,
): Promise<Map<HookRuntime, HookBackend>> {
  const hooks = [...config.tenants.values()].flatMap((t) => [...t.hooks.values()]);
  return buildHookBackends(hooks, f, log, metrics);
}

/** Builds (does not start) a backend for each of `hooks`; one ConfigError names every failure. */
export async function buildHookBackends(
  hooks: Iterable<HookRuntime>,
  f: BackendFactories,
  log: Logger,
  metrics?: Metrics,
): Promise<Map<HookRuntime, HookBackend>> {
  const out = new Map<HookRuntime, HookBackend>();
  const issues: ConfigIssue[] = [];
  for (const hook of hooks) {
    try {
      out.set(hook, await buildBackend(hook, f, log, metrics));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return out;
}

async function buildBackend(
  hook: HookRuntime,
  f: BackendFactories,
  log: Logger,
  metrics?: Metrics,
): Promise<HookBackend> {
  const path = `tenants.${hook.tenant}.hooks.${hook.name}.backend`;
  const ctx: BackendContext = { tenant: hook.tenant, hook: hook.name, modes: [...hook.modeList], log };
  if (metrics) {
    const stderrDropped = metrics.counter('hookgate_hook_stderr_dropped_lines_total', {
      tenant: hook.tenant,
      hook: hook.name,
    });
    ctx.count = (counter, by) => {
      if (counter === 'hook_stderr_dropped_lines') stderrDropped(by);
    };
  }
  const b = hook.backend;
  if (b.type === 'rules') return new RulesBackend();
  if (b.type === 'module') {
    let mod: unknown;
    try {
      mod = await f.loadModule(b.module);
    } catch (err) {
      throw new ConfigError([{ path: `${path}.module`, message: `cannot load: ${(err as Error).message}` }]);
    }
    const obj = (mod as { default?: unknown })?.default ?? mod;
    if (!isHookObject(obj)) {
      throw new ConfigError([{ path: `${path}.module`, message: 'default export is not a hook object' }]);
    }
    const problems = hookObjectProblems(obj as HookObject, hook.modeList);
    if (problems.error) throw new ConfigError([{ path: `${path}.module`, message: problems.error }]);
    if (problems.unserved.length > 0) {
      log.warn(
        { tenant: hook.tenant, hook: hook.name, modes: problems.unserved },
        'module hook has no function for these modes: their calls get no objection',
      );
    }
    return new ModuleBackend(obj as HookObject, ctx);
  }
  if (b.type === 'http') {
    try {
      return new HttpBackend(
        { url: b.url, secrets: b.secrets, timeoutMs: b.timeout_ms ?? hook.timeoutMs, fetch: f.fetch },
        ctx,
      );
    } catch (err) {
      throw new ConfigError([{ path: `${path}.secret`, message: (err as Error).message }]);
    }
  }
  if (!f.createStdio)
    throw new ConfigError([{ path: `${path}.type`, message: 'stdio backends need the Node runtime' }]);
  return f.createStdio(hook, ctx);
}
