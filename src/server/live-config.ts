import type { TenantVerifier } from '../auth/verifier.js';
import type { HookBackend } from '../backends/types.js';
import type { GatewayConfig, HookRuntime } from '../config/runtime.js';

/** Calls in flight on one backend, and who waits for them to reach zero (a retired backend's close). */
interface InFlight {
  calls: number;
  drained: Array<() => void> | undefined;
}

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
  /**
   * One counter per backend, made on its first call and kept: counting a call changes no map. (A
   * count entry deleted at zero and added again made the map rebuild its table every few calls, on
   * the path of every call; those tables, held by a long-lived map, outlived young collections.)
   */
  private readonly inFlight = new WeakMap<HookBackend, InFlight>();

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
    const counter = this.inFlight.get(backend);
    if (counter) counter.calls++;
    else this.inFlight.set(backend, { calls: 1, drained: undefined });
  }

  callEnded(backend: HookBackend): void {
    const counter = this.inFlight.get(backend);
    if (!counter || counter.calls === 0) return;
    counter.calls--;
    if (counter.calls > 0 || counter.drained === undefined) return;
    const waiters = counter.drained;
    counter.drained = undefined;
    for (const w of waiters) w();
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
    const counter = this.inFlight.get(backend);
    if (counter !== undefined && counter.calls > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxMs);
        counter.drained ??= [];
        counter.drained.push(() => {
          clearTimeout(timer);
          resolve();
        });
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
