import { existsSync } from 'node:fs';

/**
 * Debian's chromium, driven by playwright-core (no browser of playwright's own). Tests that need it
 * skip, with the reason, when it is not installed, except in CI (CI set), which installs it
 * (`apt-get install chromium`): there a missing browser fails them instead of hiding them.
 */
const CANDIDATES = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
export const CHROMIUM = CANDIDATES.find((p): p is string => !!p && existsSync(p));
export const NO_CHROMIUM_REASON = 'chromium is not installed (apt-get install chromium, or set CHROMIUM)';
export const SKIP_CHROMIUM = !CHROMIUM && !process.env.CI;
/** For a describe title: why it is skipped, when it is. */
export const chromiumNote = SKIP_CHROMIUM ? ` (skipped: ${NO_CHROMIUM_REASON})` : '';

/**
 * Chromium flags for a browser with no network but loopback: every host name resolves to nothing,
 * and 127.0.0.1 is reached by address.
 */
export const OFFLINE_ARGS = ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'];
