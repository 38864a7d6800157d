import { describe, expect, it } from 'vitest';
import type { HookBackend } from '../../src/backends/types.js';
import type { GatewayConfig, HookRuntime } from '../../src/config/runtime.js';
import { LiveConfig } from '../../src/server/live-config.js';

/** A backend that only records whether it was closed: what LiveConfig does with one. */
function recordingBackend(): HookBackend & { closed: boolean } {
  return {
    kind: 'module',
    closed: false,
    start: async () => {},
    call: async () => ({}),
    notify: () => {},
    ready: () => true,
    async close() {
      this.closed = true;
    },
  };
}

/** A LiveConfig whose one hook was retired by a reload, with its backend. */
function retiredHook() {
  const hook = { tenant: 't', name: 'h' } as HookRuntime;
  const backend = recordingBackend();
  const live = new LiveConfig({ config: {} as GatewayConfig, verifiers: new Map(), backends: new Map() });
  live.swap({ config: {} as GatewayConfig, verifiers: new Map(), backends: new Map() }, [[hook, backend]]);
  return { live, hook, backend };
}

/** Settles when `p` does, or says it has not once every pending callback has had its turn. */
async function settledYet(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('LiveConfig: a retired backend is closed once its calls are answered', () => {
  it('closes at once when no call is in flight', async () => {
    const { live, hook, backend } = retiredHook();
    await live.closeWhenDrained(hook, 60_000);
    expect(backend.closed).toBe(true);
    expect(live.backendOf(hook)).toBeUndefined();
  });

  it('waits for the calls in flight, however often the count went back to zero before', async () => {
    const { live, hook, backend } = retiredHook();
    // Calls that came and went: the counter stays, at zero, and counts again from there.
    for (let i = 0; i < 100; i++) {
      live.callStarted(backend);
      live.callEnded(backend);
    }
    live.callStarted(backend);
    live.callStarted(backend);
    const closing = live.closeWhenDrained(hook, 60_000);
    expect(await settledYet(closing)).toBe(false);
    live.callEnded(backend);
    expect(await settledYet(closing)).toBe(false);
    expect(backend.closed).toBe(false);
    live.callEnded(backend);
    await closing;
    expect(backend.closed).toBe(true);
  });

  it('an end without a start does not count below zero', async () => {
    const { live, hook, backend } = retiredHook();
    live.callEnded(backend);
    live.callStarted(backend);
    const closing = live.closeWhenDrained(hook, 60_000);
    expect(await settledYet(closing)).toBe(false);
    live.callEnded(backend);
    await closing;
    expect(backend.closed).toBe(true);
  });

  it('closes after its bound even when a call never ends', async () => {
    const { live, hook, backend } = retiredHook();
    live.callStarted(backend);
    await live.closeWhenDrained(hook, 1);
    expect(backend.closed).toBe(true);
    // The call that ends later finds nobody waiting and changes nothing.
    live.callEnded(backend);
    expect(backend.closed).toBe(true);
  });
});
