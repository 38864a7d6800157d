import { TenantVerifier } from '../auth/verifier.js';
import type { HookBackend } from '../backends/types.js';
import { type ConfigIssue, ConfigError } from '../config/errors.js';
import type { GatewayConfig, HookRuntime, TenantRuntime } from '../config/runtime.js';
import { deepEqual } from '../lib/deep-equal.js';
import { type BackendFactories, buildHookBackends } from './backends.js';
import { type ConfigSnapshot, drainBoundMs, type LiveConfig } from './live-config.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { WsSession } from './ws-session.js';

/** What a reload changed; `needs_restart` lists server settings that differ but only apply at start. */
export interface ReloadSummary {
  tenants: { added: string[]; removed: string[]; auth_changed: string[] };
  hooks: {
    added: string[];
    removed: string[];
    changed: string[];
    unchanged: string[];
    /** Same config, restarted because what its sandbox must cover changed (see HookPlans). */
    restarted: string[];
  };
  admin_token: 'unchanged' | 'changed' | 'added' | 'removed';
  needs_restart: string[];
}

/**
 * What a runtime plans for each hook from the whole config rather than from the hook's own (Node:
 * a stdio hook's sandbox view covers every other tenant's paths and every `file:` secret). The
 * runtime stages the plans for the new config while loading it; the reload asks which running
 * hooks they change, and commits them when it applies (or discards them when it refuses).
 */
export interface HookPlans {
  /** The staged plans differ for this running hook: its backend is replaced, as if it had changed. */
  outdated(hook: HookRuntime): boolean;
  /** From now on every start and restart uses the staged plans. */
  commit(): void;
  discard(): void;
}

export type ReloadOutcome = { ok: true; summary: ReloadSummary } | { ok: false; issues: ConfigIssue[] };

export interface ReloaderDeps {
  live: LiveConfig;
  factories: BackendFactories;
  log: Logger;
  metrics: Metrics;
  /** Open WebSockets, each re-checked against the new config (see WsSession.revalidate). */
  sessions: ReadonlySet<WsSession>;
  plans?: HookPlans;
}

interface Prepared {
  snapshot: ConfigSnapshot;
  summary: ReloadSummary;
  /** Backends of new and changed hooks, built and not yet started. */
  built: Map<HookRuntime, HookBackend>;
  /** Old hooks (removed or changed) and their backends, to close once drained. */
  retired: Array<[HookRuntime, HookBackend]>;
  authChanged: Set<string>;
}

/**
 * Replaces the running config without a restart. The new config is compiled and everything that
 * can fail (key import, module load, backend construction) is done before anything changes; a bad
 * config changes nothing. Hooks whose compiled config is structurally the same keep their backend
 * (a stdio hook keeps its process); tenants whose auth changed get a new verifier, so a token that
 * only a removed key verified is refused at once (the old verifier's cache goes with it). Reloads
 * run one at a time.
 *
 * Server settings (host, port, limits, log level) apply at start only: a reload reports the ones
 * that differ under `needs_restart` and keeps running with the old values. `admin_token` is the
 * exception, so it can be rotated.
 */
export class Reloader {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ReloaderDeps) {}

  reload(load: () => GatewayConfig | Promise<GatewayConfig>): Promise<ReloadOutcome> {
    const run = this.chain.then(() => this.run(load));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves when no reload is under way (shutdown waits for one, so it closes what it started). */
  settled(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  private async run(load: () => GatewayConfig | Promise<GatewayConfig>): Promise<ReloadOutcome> {
    const { log, metrics } = this.deps;
    let prepared: Prepared;
    try {
      prepared = await this.prepare(await load());
    } catch (err) {
      this.deps.plans?.discard();
      if (!(err instanceof ConfigError)) throw err;
      metrics.inc('hookgate_config_reloads_total', { outcome: 'refused' });
      log.error(
        { paths: [...new Set(err.issues.map((i) => i.path || '(root)'))], issues: err.issues },
        'config reload refused; nothing changed',
      );
      return { ok: false, issues: err.issues };
    }
    await this.apply(prepared);
    metrics.inc('hookgate_config_reloads_total', { outcome: 'ok' });
    log.info({ ...prepared.summary }, 'config reloaded');
    if (prepared.summary.needs_restart.length > 0) {
      log.warn(
        { settings: prepared.summary.needs_restart },
        'these server settings changed but apply only after a restart',
      );
    }
    return { ok: true, summary: prepared.summary };
  }

  private async prepare(next: GatewayConfig): Promise<Prepared> {
    const cur = this.deps.live.current;
    const server = cur.config.server;
    const summary: ReloadSummary = {
      tenants: { added: [], removed: [], auth_changed: [] },
      hooks: { added: [], removed: [], changed: [], unchanged: [], restarted: [] },
      admin_token: adminTokenChange(server.adminToken, next.server.adminToken),
      needs_restart: [],
    };
    const keys = new Set([...Object.keys(server), ...Object.keys(next.server)]);
    for (const k of keys) {
      if (k === 'adminToken') continue;
      const key = k as keyof typeof server;
      if (!deepEqual(server[key], next.server[key])) summary.needs_restart.push(`server.${snakeCase(k)}`);
    }

    const issues: ConfigIssue[] = [];
    const verifiers = new Map<string, TenantVerifier>();
    const tenants = new Map<string, TenantRuntime>();
    const kept = new Map<HookRuntime, HookBackend>();
    const toBuild: HookRuntime[] = [];
    const retired: Array<[HookRuntime, HookBackend]> = [];
    const authChanged = new Set<string>();

    for (const [name, tenant] of next.tenants) {
      const old = cur.config.tenants.get(name);
      const oldVerifier = cur.verifiers.get(name);
      if (!old) summary.tenants.added.push(name);
      if (old && oldVerifier && deepEqual(authOf(old), authOf(tenant))) {
        verifiers.set(name, oldVerifier);
      } else {
        if (old) {
          summary.tenants.auth_changed.push(name);
          authChanged.add(name);
        }
        try {
          verifiers.set(name, await TenantVerifier.create(tenant, server.tokenCacheSize));
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          issues.push(...err.issues);
        }
      }
      const hooks = new Map<string, HookRuntime>();
      for (const [hookName, hook] of tenant.hooks) {
        const id = `${name}/${hookName}`;
        const was = old?.hooks.get(hookName);
        const backend = was && cur.backends.get(was);
        const same = !!was && !!backend && deepEqual(was, hook);
        // Its config is the same, but what its sandbox must cover is not (a tenant was added): it is
        // started again in its new view rather than kept in the one planned without that tenant.
        const outdated = same && !!this.deps.plans?.outdated(was as HookRuntime);
        if (was && backend && same && !outdated) {
          // The same object: its backend, cached policies and counters carry on untouched.
          hooks.set(hookName, was);
          kept.set(was, backend);
          summary.hooks.unchanged.push(id);
          continue;
        }
        hooks.set(hookName, hook);
        toBuild.push(hook);
        if (was) {
          if (outdated) summary.hooks.restarted.push(id);
          else summary.hooks.changed.push(id);
          if (backend) retired.push([was, backend]);
        } else {
          summary.hooks.added.push(id);
        }
      }
      tenants.set(name, { ...tenant, hooks });
    }
    for (const [name, old] of cur.config.tenants) {
      const now = next.tenants.get(name);
      if (!now) summary.tenants.removed.push(name);
      for (const [hookName, hook] of old.hooks) {
        if (now?.hooks.has(hookName)) continue;
        summary.hooks.removed.push(`${name}/${hookName}`);
        const backend = cur.backends.get(hook);
        if (backend) retired.push([hook, backend]);
      }
    }

    let built = new Map<HookRuntime, HookBackend>();
    try {
      built = await buildHookBackends(toBuild, this.deps.factories, this.deps.log, this.deps.metrics);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues);
    }
    // Nothing built here has been started, so dropping it on failure leaves nothing running.
    if (issues.length > 0) throw new ConfigError(issues);

    const config: GatewayConfig = {
      server: { ...server, adminToken: next.server.adminToken },
      revision: next.revision,
      tenants,
    };
    return {
      snapshot: { config, verifiers, backends: new Map([...kept, ...built]) },
      summary,
      built,
      retired,
      authChanged,
    };
  }

  private async apply(p: Prepared): Promise<void> {
    const { live, log, sessions } = this.deps;
    this.deps.plans?.commit();
    // New backends start before the swap, so a changed hook's calls move to a process that is up.
    // One that cannot start does not stop the reload (as at startup): /readyz names it.
    await Promise.all(
      [...p.built].map(([hook, b]) =>
        b
          .start()
          .catch((err: unknown) =>
            log.error({ tenant: hook.tenant, hook: hook.name, err: String(err) }, 'backend did not start'),
          ),
      ),
    );
    live.swap(p.snapshot, p.retired);

    // Every socket open now is brought under the new config: closed with 4004 when its hook is gone,
    // with 1008 when its token no longer verifies, else moved to the new hook object. A socket whose
    // upgrade was verified before the swap but opens after it checks itself (and holds its calls
    // until it has), so a removed key admits nothing however the upgrade and the reload interleave.
    await Promise.all([...sessions].map((session) => session.revalidate()));

    for (const [hook] of p.retired) {
      live
        .closeWhenDrained(hook, drainBoundMs(hook))
        .catch((err: unknown) =>
          log.warn(
            { tenant: hook.tenant, hook: hook.name, err: String(err) },
            'retired backend did not close',
          ),
        );
    }
  }
}

function authOf(t: TenantRuntime) {
  return { audience: t.audience, issuer: t.issuer, clockToleranceS: t.clockToleranceS, keys: t.keys };
}

function adminTokenChange(before?: string, after?: string): ReloadSummary['admin_token'] {
  if (before === after) return 'unchanged';
  if (before === undefined) return 'added';
  return after === undefined ? 'removed' : 'changed';
}

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
