import type { SpawnSpec } from '../../backends/types.js';
import type { HookRuntime } from '../../config/runtime.js';
import type { HookPlans } from '../../server/reload.js';
import type { HookSandboxes } from './hook-sandboxes.js';

type Wrap = (spec: SpawnSpec) => SpawnSpec;

/**
 * The sandbox plans of a running gateway's stdio hooks, which a reload replaces as a whole.
 *
 * A hook's view covers every other tenant's paths and every `file:` secret, so it depends on the
 * whole config, not on the hook's own. Every spawn (the first and each restart) is planned by the
 * plans current at that moment, never by those the backend was built with; and at a reload a
 * running hook whose view the new config must cover more of is reported `outdated`, so the reload
 * starts it again in its new view instead of keeping the process that was planned without it.
 */
export class SandboxViews implements HookPlans {
  private staged?: HookSandboxes;

  constructor(private current: HookSandboxes) {}

  /**
   * The wrapper a stdio backend is built with (undefined: hooks run unsandboxed here, which only
   * a restart changes). While a reload is being prepared, backends are built for the staged plans.
   */
  wrapFor(hook: HookRuntime): Wrap | undefined {
    let from = this.staged ?? this.current;
    let wrap = from(hook);
    if (!wrap) return undefined;
    return (spec) => {
      if (from !== this.current) {
        // Plans without this hook (it was removed and is draining) keep the view it had.
        const next = this.current(hook);
        if (next) wrap = next;
        from = this.current;
      }
      return (wrap as Wrap)(spec);
    };
  }

  /** The plans for a config a reload is about to apply; nothing spawns with them until `commit`. */
  stage(next: HookSandboxes): void {
    this.staged = next;
  }

  outdated(hook: HookRuntime): boolean {
    if (!this.staged || hook.backend.type !== 'stdio') return false;
    // Only what the new config covers and the old did not matters: a path a running hook can see
    // is now someone else's. A path no longer covered stays covered until the hook restarts anyway.
    const before = new Set(this.current.covered(hook));
    return this.staged.covered(hook).some((p) => !before.has(p));
  }

  commit(): void {
    if (this.staged) this.current = this.staged;
    this.staged = undefined;
  }

  discard(): void {
    this.staged = undefined;
  }
}
