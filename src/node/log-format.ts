import type pino from 'pino';
import { REDACT_KEYS, redactText } from '../server/logger.js';

/**
 * The one pino line format of every Node process hookgate runs (the gateway and the bridge): JSON
 * lines with `level` as a label, epoch-ms `time`, `service`, `msg`. Secret-bearing keys are removed
 * at any depth we log them, and the message is scrubbed of JWT-shaped text.
 */
export function logOptions(service: string, level: string): pino.LoggerOptions {
  const paths = REDACT_KEYS.flatMap((k) => [
    k,
    `*.${k}`,
    `*.*.${k}`,
    `headers["${k}"]`,
    `req.headers["${k}"]`,
  ]);
  return {
    level,
    base: { service },
    redact: { paths, remove: true },
    formatters: { level: (label) => ({ level: label }) },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === 'string' ? redactText(a) : a));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
}

/** Copies a log object with JWT-shaped text scrubbed from every string in it, so a token cannot reach a line even from an error message. */
export function scrubLogObject(obj: object): object {
  return scrub(obj, 0) as object;
}

function scrub(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return v.includes('eyJ') || /bearer/i.test(v) ? redactText(v) : v;
  if (depth > 6 || typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map((x) => scrub(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = scrub(x, depth + 1);
  return out;
}
