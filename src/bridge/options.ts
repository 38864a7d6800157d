import { HookgateError } from '../lib/errors.js';
import { type FlagSpecs, type FlagValues, parseFlags } from '../node/cli/parse-args.js';

/**
 * `hookgate bridge` flags. The token comes only from the environment: argv is visible to every
 * user of the machine (`ps`), so a `--token` flag is refused outright rather than quietly ignored.
 */

export type OnFailure = 'open' | 'closed';
export type TransportMode = 'ws' | 'http' | 'auto';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface BridgeOptions {
  /** The WebSocket endpoint, `ws(s)://…/v1/tenants/{tenant}/hooks/{hook}/ws`. */
  wsUrl: string;
  /** The HTTP endpoint: the ws URL without `/ws`, ws→http, wss→https. */
  httpUrl: string;
  token: string;
  onFailure: OnFailure;
  /** Deadline for before/after llm/tool; under PicoClaw's 5 s. */
  timeoutMs: number;
  /** Deadline for approve_tool; under PicoClaw's 60 s. */
  approvalTimeoutMs: number;
  transport: TransportMode;
  /** Tools a `respond` may name; undefined means the bridge does not check (the gateway still does). */
  allowRespond?: string[];
  /** Largest message sent to the gateway; bigger calls get the failure answer without being sent. */
  maxMessageBytes: number;
  logLevel: LogLevel;
}

export const TOKEN_ENV = 'HOOKGATE_TOKEN';

/** Under PicoClaw's default deadlines (5 s per interceptor, 60 s per approval), so its answer counts. */
export const DEFAULT_TIMEOUT_MS = 4500;
export const DEFAULT_APPROVAL_TIMEOUT_MS = 55_000;

export const USAGE = `usage: hookgate bridge --url wss://HOST/v1/tenants/TENANT/hooks/HOOK/ws [options]
  token: environment variable ${TOKEN_ENV} (never a flag)
  --on-failure open|closed        answer when the gateway fails (default open)
  --timeout-ms N                  interceptor deadline (default ${DEFAULT_TIMEOUT_MS})
  --approval-timeout-ms N         approve_tool deadline (default ${DEFAULT_APPROVAL_TIMEOUT_MS})
  --transport ws|http|auto        default auto: WebSocket, HTTP POST when a WebSocket cannot be opened
  --allow-respond a,b             tools a before_tool respond may name (others become continue)
  --max-message-bytes N           largest call sent upstream (default 8388608)
  --log-level debug|info|warn|error (default info; logs go to stderr only)`;

/** The flags, for the one parser every hookgate command uses. */
export const BRIDGE_FLAGS = {
  url: { type: 'string' },
  'on-failure': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'approval-timeout-ms': { type: 'string' },
  transport: { type: 'string' },
  'allow-respond': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  'log-level': { type: 'string' },
} as const satisfies FlagSpecs;

/** Refused before anything echoes them: their value is a secret. */
export const BRIDGE_REFUSED_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(
  ['token', 'jwt'].map((name) => [
    name,
    `--${name} is not accepted: argv is visible to other users; set the token in ${TOKEN_ENV}`,
  ]),
);

/** Words that mark a token smuggled into the URL; the gateway never reads it there anyway. */
const TOKEN_PARAMS = ['token', 'access_token', 'jwt', 'bearer', 'auth', 'authorization'];

export class BridgeUsageError extends HookgateError<'BRIDGE_USAGE'> {
  constructor(message: string) {
    super('BRIDGE_USAGE', message);
    this.name = 'BridgeUsageError';
  }
}

function fail(message: string): never {
  throw new BridgeUsageError(message);
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  return fail(`--${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
}

function positiveInt(flag: string, value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  // setTimeout overflows past 2^31-1 ms and fires at once, which would turn every call into a failure.
  if (!Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647) {
    fail(`--${flag} must be a whole number of milliseconds/bytes between 1 and 2147483647 (got "${value}")`);
  }
  return n;
}

/** Derives both endpoints from the one URL the user gives (ws/wss normally; http/https accepted). */
export function endpointsFromUrl(raw: string): { wsUrl: string; httpUrl: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(`--url is not a valid URL: "${raw}"`);
  }
  if (url.username || url.password) fail('--url must not carry credentials; put the token in HOOKGATE_TOKEN');
  for (const key of url.searchParams.keys()) {
    if (TOKEN_PARAMS.includes(key.toLowerCase())) {
      fail(`--url must not carry a token (query "${key}"); put it in ${TOKEN_ENV}`);
    }
  }
  if (url.hash) fail('--url must not have a #fragment');
  const secure = url.protocol === 'wss:' || url.protocol === 'https:';
  if (!['ws:', 'wss:', 'http:', 'https:'].includes(url.protocol)) {
    fail(`--url must start with ws://, wss://, http:// or https:// (got "${url.protocol}")`);
  }
  const base = url.pathname.replace(/\/+$/, '');
  const httpPath = base.endsWith('/ws') ? base.slice(0, -3) : base;
  const isWsScheme = url.protocol === 'ws:' || url.protocol === 'wss:';
  const wsPath = isWsScheme || base.endsWith('/ws') ? base : `${base}/ws`;
  const host = url.host;
  const query = url.search;
  return {
    wsUrl: `${secure ? 'wss' : 'ws'}://${host}${wsPath}${query}`,
    httpUrl: `${secure ? 'https' : 'http'}://${host}${httpPath}${query}`,
  };
}

/** Parses `hookgate bridge` arguments (without the `bridge` word). Throws BridgeUsageError. */
export function parseBridgeArgs(argv: string[], env: Record<string, string | undefined>): BridgeOptions {
  const { values } = parseFlags(argv, BRIDGE_FLAGS, { refuse: BRIDGE_REFUSED_FLAGS, fail });
  return bridgeOptionsFromFlags(values, env);
}

/** The options from already parsed flags (as `hookgate bridge` has them). Throws BridgeUsageError. */
export function bridgeOptionsFromFlags(
  flags: FlagValues<typeof BRIDGE_FLAGS>,
  env: Record<string, string | undefined>,
): BridgeOptions {
  const values = new Map(
    Object.entries(flags).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const rawUrl = values.get('url') ?? fail('--url is required');
  // A pasted `Bearer <jwt>` header value is accepted as the token it contains.
  const token = (env[TOKEN_ENV] ?? '').trim().replace(/^bearer\s+/i, '');
  if (token.length === 0)
    fail(`${TOKEN_ENV} is not set: the bridge needs the gateway token in that variable`);
  if (/\s/.test(token)) fail(`${TOKEN_ENV} must be a single token without spaces`);

  const allow = values.get('allow-respond');
  const options: BridgeOptions = {
    ...endpointsFromUrl(rawUrl),
    token,
    onFailure: oneOf('on-failure', values.get('on-failure') ?? 'open', ['open', 'closed'] as const),
    timeoutMs: positiveInt('timeout-ms', values.get('timeout-ms') ?? String(DEFAULT_TIMEOUT_MS)),
    approvalTimeoutMs: positiveInt(
      'approval-timeout-ms',
      values.get('approval-timeout-ms') ?? String(DEFAULT_APPROVAL_TIMEOUT_MS),
    ),
    transport: oneOf('transport', values.get('transport') ?? 'auto', ['ws', 'http', 'auto'] as const),
    allowRespond:
      allow === undefined
        ? undefined
        : allow
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s.length > 0),
    maxMessageBytes: positiveInt(
      'max-message-bytes',
      values.get('max-message-bytes') ?? String(8 * 1024 * 1024),
    ),
    logLevel: oneOf('log-level', values.get('log-level') ?? 'info', [
      'debug',
      'info',
      'warn',
      'error',
    ] as const),
  };
  return options;
}
