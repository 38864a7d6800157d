import type { GatewayConfig } from '../../config/runtime.js';
import { isLoopback, sendsPasswordInClear } from '../../config/redis.js';
import { LocalLimiter } from '../../limits/local.js';
import { RedisLimiter } from '../../limits/redis.js';
import type { AssembleOptions } from '../../server/assemble.js';
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
  const tls = config.server.redisTls;
  return ({ metrics, log }) => {
    const limiter = new RedisLimiter(new RedisClient(url, { timeoutMs: REDIS_TIMEOUT_MS, tls }), {
      fallback: new LocalLimiter(),
      metrics,
      log,
    });
    const parsed = new URL(url);
    // Off loopback the config refuses this; on loopback it is allowed (Redis's own default setup),
    // but any local process that binds the port while Redis restarts receives the password.
    if (sendsPasswordInClear(parsed) && isLoopback(parsed.hostname)) {
      log.warn(
        {},
        'redis password sent over plain redis:// on loopback: a local process holding the port ' +
          'while Redis restarts would receive it; prefer rediss:// with server.redis_tls.ca',
      );
    }
    log.info({ tls: parsed.protocol === 'rediss:', pinned_ca: !!tls?.ca }, 'limits shared through redis');
    return limiter;
  };
}
