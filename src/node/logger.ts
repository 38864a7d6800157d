import pino from 'pino';
import type { Logger } from '../server/logger.js';
import { logOptions, scrubLogObject } from './log-format.js';

/**
 * The gateway's pino JSON lines (format and redaction in `log-format.ts`, shared with the bridge).
 */
export function createNodeLogger(level: string, destination?: pino.DestinationStream): Logger {
  return wrap(pino(logOptions('hookgate', level), destination));
}

function wrap(l: pino.Logger): Logger {
  const scrub = scrubLogObject;
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
