import type { GatewayConfig } from '../config/runtime.js';
import { LocalLimiter } from '../limits/local.js';
import { RedisLimiter } from '../limits/redis.js';
import type { AssembleOptions } from '../server/assemble.js';
import { RedisClient } from './redis-client.js';

/**
 * How long a limit decision may wait for Redis before the call is decided in-process. A call
 * waits at most this long (or twice, when Redis lost the script), never for a reconnect.
 */
export const REDIS_TIMEOUT_MS = 250;

/** With `server.redis_url`, limits shared through Redis; without, the default in-process limiter. */
export function redisLimiterFactory(config: GatewayConfig): AssembleOptions['createLimiter'] {
  const url = config.server.redisUrl;
  if (!url) return undefined;
  return ({ metrics, log }) => {
    const limiter = new RedisLimiter(new RedisClient(url, REDIS_TIMEOUT_MS), {
      fallback: new LocalLimiter(),
      metrics,
      log,
    });
    log.info({}, 'limits shared through redis');
    return limiter;
  };
}
