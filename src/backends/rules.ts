import type { HookBackend } from './types.js';

/**
 * The backend of a hook made only of rules (`backend: { type: rules }`): nothing runs and nothing is
 * asked. The gateway answers such a hook's calls itself — by its rules, else the neutral answer —
 * so `call` is never reached; it answers the zero value, as a hook with nothing to say would.
 */
export class RulesBackend implements HookBackend {
  readonly kind = 'rules' as const;
  private closed = false;

  async start(): Promise<void> {}

  ready(): boolean {
    return !this.closed;
  }

  call(): Promise<unknown> {
    return Promise.resolve(undefined);
  }

  notify(): void {}

  async close(): Promise<void> {
    this.closed = true;
  }
}
