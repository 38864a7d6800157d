import type { LogLevel } from './options.js';

/**
 * JSON-lines logger for stderr. stdout belongs to PicoClaw's protocol, so nothing else may write
 * there. PicoClaw logs every stderr line at WARN and stops reading stderr for good after a line over
 * 1 MiB, so lines are kept short, and every secret is masked after serialising, whatever field it
 * ended up in.
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

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const MAX_FIELD_CHARS = 2000;
const MAX_LINE_CHARS = 16 * 1024;
const REDACTED = '[REDACTED]';

function clip(value: unknown): unknown {
  if (value instanceof Error) return clip(value.message);
  if (typeof value === 'string' && value.length > MAX_FIELD_CHARS) {
    return `${value.slice(0, MAX_FIELD_CHARS)}…(${value.length} chars)`;
  }
  return value;
}

export function createLogger(sink: LineSink, level: LogLevel, secrets: string[]): BridgeLog {
  const min = LEVELS[level];
  // Mask both the raw secret and its JSON-escaped form (they differ only for unusual characters).
  const masks = secrets
    .filter((s) => s.length > 0)
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])
    .sort((a, b) => b.length - a.length);

  const redact = (line: string): string => {
    let out = line;
    for (const m of masks) out = out.split(m).join(REDACTED);
    return out;
  };

  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (LEVELS[lvl] < min) return;
    const record: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: lvl,
      name: 'hookgate-bridge',
      msg,
    };
    if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) record[k] = clip(v);
    let line = redact(JSON.stringify(record));
    if (line.length > MAX_LINE_CHARS) {
      line = redact(
        JSON.stringify({ time: record.time, level: lvl, name: 'hookgate-bridge', msg, truncated: true }),
      );
    }
    try {
      sink.write(`${line}\n`);
    } catch {
      // stderr gone (host exited): nothing useful left to do with a log line.
    }
  };

  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}
