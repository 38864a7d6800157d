import pino from 'pino';
import { REDACT_KEYS, redactText, type Logger } from '../server/logger.js';

/**
 * pino JSON lines. Secret-bearing keys are removed at any depth we log them, and every string is
 * scrubbed of JWT-shaped text, so a token cannot reach a log line even from an error message.
 */
export function createNodeLogger(level: string, destination?: pino.DestinationStream): Logger {
  const paths = REDACT_KEYS.flatMap((k) => [
    k,
    `*.${k}`,
    `*.*.${k}`,
    `headers["${k}"]`,
    `req.headers["${k}"]`,
  ]);
  const logger = pino(
    {
      level,
      base: { service: 'hookgate' },
      redact: { paths, remove: true },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? redactText(a) : a));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  return wrap(logger);
}

function wrap(l: pino.Logger): Logger {
  const scrub = (obj: object): object => scrubObject(obj, 0) as object;
  // Level first: a disabled level must cost nothing, not a scrub of the object.
  return {
    enabled: (level) => l.isLevelEnabled(level),
    trace: (o, m) => l.isLevelEnabled('trace') && l.trace(scrub(o), m),
    debug: (o, m) => l.isLevelEnabled('debug') && l.debug(scrub(o), m),
    info: (o, m) => l.isLevelEnabled('info') && l.info(scrub(o), m),
    warn: (o, m) => l.isLevelEnabled('warn') && l.warn(scrub(o), m),
    error: (o, m) => l.isLevelEnabled('error') && l.error(scrub(o), m),
    child: (b) => wrap(l.child(b)),
  };
}

function scrubObject(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return v.includes('eyJ') || /bearer/i.test(v) ? redactText(v) : v;
  if (depth > 6 || typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map((x) => scrubObject(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = scrubObject(x, depth + 1);
  return out;
}
