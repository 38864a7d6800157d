import type { HookRuntime } from '../config/runtime.js';
import { failureAnswer } from '../policy/index.js';
import type { CallMethod } from '../protocol/methods.js';

/**
 * A dialect route's answer as JSON text: `hostAnswer()` is the policy-checked answer in the host's
 * shape. An answer too deep to convert or serialise (a rewrite nested past the stack) is a bad
 * answer, so the hook's declared failure answer goes in its place, through `toHost` into the same
 * shape. One place for every host dialect, so all of them fail the same way.
 */
export function hostAnswerText(
  hook: HookRuntime,
  method: CallMethod,
  hostAnswer: () => unknown,
  toHost: (answer: Record<string, unknown>) => unknown,
  hostApproves = false,
): string {
  try {
    return JSON.stringify(hostAnswer());
  } catch {
    return JSON.stringify(
      toHost(failureAnswer(hook, method, 'answer could not be serialised', hostApproves)),
    );
  }
}
