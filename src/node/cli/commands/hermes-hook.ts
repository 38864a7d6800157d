import { TOKEN_ENV } from '../../../bridge/options.js';
import { runHermesHook } from '../../../hosts/hermes/hook.node.js';
import { defineCommand, usageError } from './command.js';

/** Hermes's pre_llm_call carries the whole conversation; more than this is not a hook payload. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Query words that mark a token smuggled into the URL (the gateway never reads it there). */
const TOKEN_PARAMS = ['token', 'access_token', 'jwt', 'bearer', 'auth', 'authorization'];

/** The hook's hermes route from the URL given: the hook's URL, or already its /hermes route. */
export function hermesRouteUrl(raw: string): string {
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
  if (!/^\/v1\/tenants\/[^/]+\/hooks\/[^/]+(\/hermes)?$/.test(path))
    usageError(
      `--url must be a hook's URL, …/v1/tenants/{tenant}/hooks/{hook}[/hermes] (got "${url.pathname}")`,
    );
  url.pathname = path.endsWith('/hermes') ? path : `${path}/hermes`;
  url.hash = '';
  return url.toString();
}

export const hermesHook = defineCommand({
  name: 'hermes-hook',
  help: `usage: hookgate hermes-hook --url URL [--fail-closed] [--no-modify] [--timeout-ms N]
  --url URL        the hook's URL: http(s)://HOST/v1/tenants/{tenant}/hooks/{hook} (…/hermes also accepted)
  --fail-closed    on any gateway failure exit 2 with the reason (and a block for pre_tool_call);
                   pair it with fail_closed: true in Hermes's config. Without it a failure prints
                   nothing and exits 0, and Hermes goes on as without the hook.
  --no-modify      for Hermes without {"action":"modify"} (0.19 and older ignore it and run the
                   call unchanged): a granted rewrite blocks the call instead
  --timeout-ms N   the most the whole call may take (default 10000); keep it under the entry's
                   Hermes timeout (seconds)
  token: environment variable ${TOKEN_ENV} (never a flag)
hookgate setup hermes prints the config.yaml hooks block.`,
  flags: {
    url: { type: 'string' },
    'fail-closed': { type: 'boolean' },
    'no-modify': { type: 'boolean' },
    'timeout-ms': { type: 'string' },
  },
  refuse: {
    token: `--token is not accepted: argv is visible to other users; set the token in ${TOKEN_ENV}`,
  },
  async run({ values }, io) {
    if (!values.url) usageError('--url is required');
    const url = hermesRouteUrl(values.url);
    const raw = values['timeout-ms'] ?? '10000';
    const timeoutMs = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 300_000)
      usageError(`--timeout-ms must be a whole number of milliseconds between 1 and 300000 (got "${raw}")`);
    // A pasted `Bearer <jwt>` header value is accepted as the token it contains. A missing token is
    // a failure like any other: the hook's fail-closed setting decides, not a usage error.
    const token = (io.env[TOKEN_ENV] ?? '').trim().replace(/^bearer\s+/i, '');
    const failClosed = values['fail-closed'] === true;
    const noModify = values['no-modify'] === true;
    const opts = { url, token, failClosed, noModify, timeoutMs, maxInputBytes: MAX_INPUT_BYTES };
    const result = await runHermesHook(process.stdin, opts);
    if (result.stdout) io.stdout.write(result.stdout);
    if (result.stderr) io.stderr.write(result.stderr);
    return result.code;
  },
});
