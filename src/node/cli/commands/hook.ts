import { TOKEN_ENV } from '../../../bridge/options.js';
import type { ShimHost } from '../../../hosts/command/shim.js';
import { claudeCodeCommandShim } from '../../../hosts/claude-code/shim.js';
import { codexShim } from '../../../hosts/codex/shim.js';
import { copilotShim } from '../../../hosts/copilot/shim.js';
import { geminiShim } from '../../../hosts/gemini/shim.js';
import { runCommandHook } from '../../../hosts/command/hook.node.js';
import { defineCommand, usageError } from './command.js';

/** The hosts `hookgate hook` serves; each one's shim.ts imports nothing (a small graph per call). */
const SHIMS: readonly ShimHost[] = [codexShim, copilotShim, geminiShim, claudeCodeCommandShim];

/** A tool call's arguments; more than this is not a hook payload. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** The default deadline: under every host's own default (Copilot: 30 s). */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Codex's own default hook timeout, the longest of the three. */
const MAX_TIMEOUT_MS = 600_000;

/** Query words that mark a token smuggled into the URL (the gateway never reads it there). */
const TOKEN_PARAMS = ['token', 'access_token', 'jwt', 'bearer', 'auth', 'authorization'];

/** The hook's route for `dialect` from the URL given: the hook's URL, or already that route. */
export function commandRouteUrl(raw: string, dialect: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return usageError(`--url is not a valid URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    usageError(`--url must start with http:// or https:// (got "${url.protocol}")`);
  if (url.username || url.password)
    usageError(`--url must not carry credentials; put the token in ${TOKEN_ENV}`);
  for (const key of url.searchParams.keys())
    if (TOKEN_PARAMS.includes(key.toLowerCase()))
      usageError(`--url must not carry a token (query "${key}"); put it in ${TOKEN_ENV}`);
  const path = url.pathname.replace(/\/+$/, '');
  const hook = /^\/v1\/tenants\/[^/]+\/hooks\/[^/]+/.exec(path)?.[0];
  if (!hook || (path !== hook && path !== `${hook}/${dialect}`))
    usageError(
      `--url must be a hook's URL, …/v1/tenants/{tenant}/hooks/{hook}[/${dialect}] (got "${url.pathname}")`,
    );
  url.pathname = `${hook}/${dialect}`;
  url.hash = '';
  return url.toString();
}

export const hook = defineCommand({
  name: 'hook',
  help: `usage: hookgate hook --host codex|copilot|gemini|claude-code-command --url URL [--fail-closed] [--timeout-ms N]
  --host H         the host running this command as its hook: codex, copilot, gemini, or
                   claude-code-command (a Claude Code "type": "command" hook, on the Claude Code route)
  --url URL        the hook's URL: http(s)://HOST/v1/tenants/{tenant}/hooks/{hook} (…/{host} also accepted)
  --fail-closed    on any failure to get the gateway's decision (down, slow, not 2xx, a redirect,
                   not a JSON object, the token missing or refused) block the call with the reason,
                   as the host shows it to the model (Codex, Gemini, Claude Code: exit 2 and stderr;
                   Copilot: a JSON deny). Without it a failure prints nothing and exits 0: the host runs the tool.
  --timeout-ms N   the most the whole call may take (default ${DEFAULT_TIMEOUT_MS}); keep it under the
                   host's hook timeout (Codex 600 s, Copilot 30 s, Gemini 60 s by default), or the host
                   gives up first and runs the tool
  token: environment variable ${TOKEN_ENV} (never a flag)
The host's JSON is read from stdin; the answer ({} prints nothing) goes to stdout.
hookgate setup codex|copilot|gemini prints the host's config.`,
  flags: {
    host: { type: 'string' },
    url: { type: 'string' },
    'fail-closed': { type: 'boolean' },
    'timeout-ms': { type: 'string' },
  },
  refuse: {
    token: `--token is not accepted: argv is visible to other users; set the token in ${TOKEN_ENV}`,
  },
  async run({ values }, io) {
    const host = SHIMS.find((s) => s.dialect === values.host);
    if (!host) usageError(`--host must be one of: ${SHIMS.map((s) => s.dialect).join(', ')}`);
    if (!values.url) usageError('--url is required');
    const url = commandRouteUrl(values.url, host.route ?? host.dialect);
    const raw = values['timeout-ms'] ?? String(DEFAULT_TIMEOUT_MS);
    const timeoutMs = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
      usageError(
        `--timeout-ms must be a whole number of milliseconds between 1 and ${MAX_TIMEOUT_MS} (got "${raw}")`,
      );
    // The host's configured timeout is not visible here; past its default, say so (setup sets one above).
    if (timeoutMs >= host.hostTimeoutMs)
      io.stderr.write(
        `hookgate: --timeout-ms ${timeoutMs} is not under ${host.dialect}'s default hook timeout (${host.hostTimeoutMs} ms): set the host's timeout above it, or the host gives up first and runs the tool\n`,
      );
    // A pasted `Bearer <jwt>` is accepted as the token it contains. A missing token is a failure
    // like any other: --fail-closed decides, not a usage error.
    const token = (io.env[TOKEN_ENV] ?? '').trim().replace(/^bearer\s+/i, '');
    const opts = {
      url,
      token,
      failClosed: values['fail-closed'] === true,
      timeoutMs,
      maxInputBytes: MAX_INPUT_BYTES,
    };
    const result = await runCommandHook(process.stdin, host, opts);
    // A host that never closes stdin (or a deadline hit while reading) must not keep the process up.
    process.stdin.destroy();
    if (result.stdout) io.stdout.write(result.stdout);
    if (result.stderr) io.stderr.write(result.stderr);
    return result.code;
  },
});
