import pino from 'pino';
import { logOptions, scrubLogObject } from '../node/log-format.js';
import { REDACTED } from '../server/logger.js';
import type { LogLevel } from './options.js';

/**
 * The bridge's log: pino in the gateway's line format (`service: "hookgate-bridge"`), on stderr only,
 * since stdout belongs to PicoClaw's protocol. PicoClaw logs every stderr line at WARN and stops
 * reading stderr for good after a line over 1 MiB, so lines are kept short; and every secret is
 * masked after serialising, whatever field it ended up in.
 */
export interface BridgeLog {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface LineSink {
  write(chunk: string): unknown;
}

export const SERVICE = 'hookgate-bridge';
const MAX_FIELD_CHARS = 2000;
const MAX_LINE_CHARS = 16 * 1024;

function clip(value: unknown): unknown {
  if (value instanceof Error) return clip(value.message);
  if (typeof value === 'string' && value.length > MAX_FIELD_CHARS) {
    return `${value.slice(0, MAX_FIELD_CHARS)}…(${value.length} chars)`;
  }
  return value;
}

/**
 * The process's own stderr, written synchronously (fd 2 through sonic-boom): a line is out before
 * the call returns, so it is not lost when the process exits right after. A full pipe blocks, as it
 * would for any program; PicoClaw keeps reading stderr as long as no line is over 1 MiB.
 */
export function processStderr(): LineSink {
  const dest = pino.destination({ dest: 2, sync: true });
  // stderr gone (host exited; EPIPE is already silenced by pino): nothing useful left to do.
  dest.on('error', () => undefined);
  return dest;
}

/** Masks the secrets in each line pino writes and caps its length before it reaches the sink. */
function maskingDestination(sink: LineSink, secrets: string[]): pino.DestinationStream {
  // Both the raw secret and its JSON-escaped form (they differ only for unusual characters).
  const masks = secrets
    .filter((s) => s.length > 0)
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])
    .sort((a, b) => b.length - a.length);
  const mask = (line: string): string => {
    let out = line;
    for (const m of masks) out = out.split(m).join(REDACTED);
    return out;
  };
  return {
    write(chunk: string) {
      let line = mask(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk);
      if (line.length > MAX_LINE_CHARS) line = mask(truncated(line));
      try {
        sink.write(`${line}\n`);
      } catch {
        // stderr gone (host exited): nothing useful left to do with a log line.
      }
    },
  };
}

/** The short record that stands for a line over the cap: the same leading fields (msg is already clipped), no others. */
function truncated(line: string): string {
  const { level, time, service, msg } = JSON.parse(line) as Record<string, unknown>;
  return JSON.stringify({ level, time, service, msg, truncated: true });
}

export function createLogger(sink: LineSink, level: LogLevel, secrets: string[]): BridgeLog {
  const logger = pino(logOptions(SERVICE, level), maskingDestination(sink, secrets));
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    // Level first: a disabled level costs no clipping or scrubbing.
    if (!logger.isLevelEnabled(lvl)) return;
    const clipped: Record<string, unknown> = {};
    if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) clipped[k] = clip(v);
    logger[lvl](scrubLogObject(clipped), clip(msg) as string);
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}
