/** The logger the runtime-neutral code writes to; pino (Node) and the Worker logger both fit it. */
export interface Logger {
  /** Whether a level is written, so a caller can skip building an entry nobody will see. */
  enabled(level: 'trace' | 'debug' | 'info' | 'warn' | 'error'): boolean;
  trace(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/**
 * Keys whose values are secrets wherever they appear in a log object; both loggers remove them.
 * Tokens are also scrubbed from free text by `redactText` (a JWT has an unmistakable shape).
 */
export const REDACT_KEYS = [
  'authorization',
  'cookie',
  'token',
  'secret',
  'password',
  'sec-websocket-protocol',
];

/** What a scrubbed or masked secret reads as in a log line. */
export const REDACTED = '[redacted]';

const JWT_LIKE = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const BEARER = /(bearer[ .])[A-Za-z0-9._~+/=-]+/gi;

export function redactText(s: string): string {
  return s.replace(JWT_LIKE, REDACTED).replace(BEARER, `$1${REDACTED}`);
}
