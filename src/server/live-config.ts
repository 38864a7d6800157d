import type { TenantVerifier } from '../auth/verifier.js';
import type { HookBackend } from '../backends/types.js';
import type { GatewayConfig, HookRuntime } from '../config/runtime.js';

/** Everything a request needs from the config, replaced as one piece by a reload. */
export interface ConfigSnapshot {
  readonly config: GatewayConfig;
  readonly verifiers: ReadonlyMap<string, TenantVerifier>;
  readonly backends: ReadonlyMap<HookRuntime, HookBackend>;
}

/**
 * The current config snapshot. The app, the auth middleware and the gateway read `current` once
 * per request; a reload swaps it in one assignment, so a request sees either the old config or
 * the new one, never a mix.
 *
 * Backends a reload took out of service (hook removed or changed) stay reachable here for the calls
 * that were already on their way to them, and are counted, so they are closed only once drained.
 */
export class LiveConfig {
  current: ConfigSnapshot;
  private readonly retired = new Map<HookRuntime, HookBackend>();
  private readonly inFlight = new Map<HookBackend, number>();
  private readonly drainWaiters = new Map<HookBackend, Array<() => void>>();

  constructor(initial: ConfigSnapshot) {
    this.current = initial;
  }

  hook(tenant: string, hook: string): HookRuntime | undefined {
    return this.current.config.tenants.get(tenant)?.hooks.get(hook);
  }

  /** The backend of a current hook, or of one a reload retired while its calls finish. */
  backendOf(hook: HookRuntime): HookBackend | undefined {
    return this.current.backends.get(hook) ?? this.retired.get(hook);
  }

  /** Every backend still open: the current ones and those draining. */
  allBackends(): HookBackend[] {
    return [...this.current.backends.values(), ...this.retired.values()];
  }

  callStarted(backend: HookBackend): void {
    this.inFlight.set(backend, (this.inFlight.get(backend) ?? 0) + 1);
  }

  callEnded(backend: HookBackend): void {
    const n = (this.inFlight.get(backend) ?? 1) - 1;
    if (n > 0) {
      this.inFlight.set(backend, n);
      return;
    }
    this.inFlight.delete(backend);
    const waiters = this.drainWaiters.get(backend);
    if (waiters) {
      this.drainWaiters.delete(backend);
      for (const w of waiters) w();
    }
  }

  /** Installs a new snapshot; `retired` are the old backends that leave service with it. */
  swap(next: ConfigSnapshot, retired: Iterable<[HookRuntime, HookBackend]>): void {
    for (const [hook, backend] of retired) this.retired.set(hook, backend);
    this.current = next;
  }

  /**
   * Resolves when no call is in flight on a retired backend (or after `maxMs`), then closes it and
   * forgets it. Calls that arrive after this finished get the closed backend's failure answer.
   */
  async closeWhenDrained(hook: HookRuntime, maxMs: number): Promise<void> {
    const backend = this.retired.get(hook);
    if (!backend) return;
    if (this.inFlight.has(backend)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxMs);
        const list = this.drainWaiters.get(backend) ?? [];
        list.push(() => {
          clearTimeout(timer);
          resolve();
        });
        this.drainWaiters.set(backend, list);
      });
    }
    this.retired.delete(hook);
    await backend.close();
  }
}

/** How long calls already on a hook may take: its longest deadline, plus a margin. */
export function drainBoundMs(hook: HookRuntime): number {
  return Math.max(hook.timeoutMs, hook.modes.has('approve') ? hook.approvalTimeoutMs : 0) + 1_000;
}
