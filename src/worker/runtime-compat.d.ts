/// <reference types="@cloudflare/workers-types" />
/// <reference types="@cloudflare/vitest-plugin/types" />

/**
 * Where @cloudflare/workers-types is narrower than the runtime it describes, in ways the shared
 * (runtime-neutral) code relies on. Both hold in workerd as in every web runtime; the DOM lib that
 * the Node typecheck uses already declares them this way.
 *
 * The references are here, not in tsconfig `types`, so that these declarations come after the
 * ones they widen (TypeScript tries the later of merged overloads first).
 */

/** HTML timers accept `undefined` (a no-op); the shared code clears timers that may not be set. */
declare function clearTimeout(timeoutId?: number | null): void;
declare function clearInterval(timeoutId?: number | null): void;

/** encode() returns a fresh Uint8Array over a plain ArrayBuffer, never a shared one. */
interface TextEncoder {
  encode(input?: string): Uint8Array<ArrayBuffer>;
}
