import { detectSandbox } from '../../src/node/sandbox/sandbox.js';

/**
 * Whether the stdio sandbox (bubblewrap) works here. Tests that need it skip, with the reason, when
 * it does not, except in CI (CI set), which installs bubblewrap: there a missing or broken one fails
 * them instead of hiding them.
 */
export const SANDBOX = detectSandbox();
export const NO_SANDBOX_REASON = SANDBOX.available ? undefined : SANDBOX.reason;
export const SKIP_SANDBOX = !SANDBOX.available && !process.env.CI;
/** For a test or describe title: why it is skipped, when it is. */
export const sandboxNote = SKIP_SANDBOX ? ` (skipped: ${NO_SANDBOX_REASON})` : '';
