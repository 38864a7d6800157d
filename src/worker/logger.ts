import { type Logger, REDACT_KEYS, REDACTED, redactText } from '../server/logger.js';

/**
 * The Worker's logger: one JSON line per entry through console.log (Workers Logs and `wrangler tail`
 * parse JSON lines into fields). pino bundled for Workers ignores `redact`, so this logger redacts
 * by itself: keys named in REDACT_KEYS are replaced at any depth, and every string (messages,
 * error texts, header values) is scrubbed of JWT- and bearer-shaped text.
 */

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LogLevel = keyof typeof LEVELS;

/** Where the lines go; console.log unless a test captures them. */
export type LogSink = (line: string) => void;

const SECRET_KEYS = new Set(REDACT_KEYS.map((k) => k.toLowerCase()));
const MAX_DEPTH = 8;
const MAX_STRING = 16 * 1024;

export function createWorkerLogger(
  level: string = 'info',
  sink: LogSink = (line) => console.log(line),
  bindings: Record<string, unknown> = {},
): Logger {
  const threshold = level in LEVELS ? LEVELS[level as LogLevel] : LEVELS.info;
  const base = scrub({ service: 'hookgate', ...bindings }, 0, new WeakSet()) as Record<string, unknown>;
  const write = (name: Exclude<LogLevel, 'silent' | 'fatal'>, obj: object, msg?: string) => {
    if (LEVELS[name] < threshold) return;
    const fields = scrub(obj, 0, new WeakSet());
    const entry: Record<string, unknown> = { level: name, time: Date.now(), ...base };
    if (fields && typeof fields === 'object' && !Array.isArray(fields)) Object.assign(entry, fields);
    else entry.value = fields;
    if (msg !== undefined) entry.msg = scrubString(String(msg));
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      // BigInt and the like: never let a log call throw into the request path.
      line = JSON.stringify({ level: name, time: entry.time, service: 'hookgate', msg: entry.msg });
    }
    sink(line);
  };
  return {
    trace: (o, m) => write('trace', o, m),
    debug: (o, m) => write('debug', o, m),
    info: (o, m) => write('info', o, m),
    warn: (o, m) => write('warn', o, m),
    error: (o, m) => write('error', o, m),
    child: (b) => createWorkerLogger(level, sink, { ...bindings, ...b }),
    enabled: (name) => LEVELS[name] >= threshold,
  };
}

function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase());
}

function scrubString(s: string): string {
  const capped = s.length > MAX_STRING ? s.slice(0, MAX_STRING) + '…' : s;
  return redactText(capped);
}

/** A JSON-safe, redacted copy of `v`. */
export function scrub(v: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof v === 'string') return scrubString(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'function' || typeof v === 'symbol') return undefined;
  if (typeof v !== 'object' || v === null) return v;
  if (seen.has(v)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[depth]';
  seen.add(v);
  if (v instanceof Error) {
    const out: Record<string, unknown> = { type: v.name, message: scrubString(v.message) };
    const code = (v as { code?: unknown }).code;
    if (code !== undefined) out.code = scrub(code, depth + 1, seen);
    return out;
  }
  if (v instanceof Headers) {
    const out: Record<string, unknown> = {};
    v.forEach((value, key) => {
      out[key] = isSecretKey(key) ? REDACTED : scrubString(value);
    });
    return out;
  }
  if (v instanceof Map) return scrub(Object.fromEntries(v), depth, seen);
  if (v instanceof Set) return scrub([...v], depth, seen);
  if (Array.isArray(v)) return v.map((x) => scrub(x, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = isSecretKey(k) ? REDACTED : scrub(x, depth + 1, seen);
  }
  return out;
}
