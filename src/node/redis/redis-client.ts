import { Redis } from 'ioredis';
import { HookgateError } from '../../lib/errors.js';

/** An error reply from Redis (`-ERR …`, `NOSCRIPT …`); its text is the message. */
export class RedisReplyError extends HookgateError<'REDIS_ERROR_REPLY'> {
  constructor(message: string) {
    super('REDIS_ERROR_REPLY', message);
    this.name = 'RedisReplyError';
  }
}

/** Redis did not answer in time, or there is no usable connection. Never quotes the URL. */
export class RedisUnavailableError extends HookgateError<'REDIS_UNAVAILABLE'> {
  constructor(message: string) {
    super('REDIS_UNAVAILABLE', message);
    this.name = 'RedisUnavailableError';
  }
}

/** How the server of a `rediss://` URL is verified (always verified; this only narrows trust). */
export interface RedisTlsOptions {
  /** PEM: the only CA(s) trusted for the server's certificate, instead of the system store. */
  ca?: string;
  /** The name the certificate must carry (and SNI), when the URL's host is not it (e.g. an IP). */
  servername?: string;
}

export interface RedisClientOptions {
  /** Every command settles within this, connected or not. */
  timeoutMs: number;
  tls?: RedisTlsOptions;
}

/**
 * The shared limiter's Redis connection: ioredis, configured for the one property the call path
 * needs, that every command settles within `timeoutMs` whatever Redis does:
 *
 * - no offline queue: a command is written only on a ready connection. Before the first
 *   connection is ready a command waits for it (within its own timeout) instead of being queued
 *   by the library; a queued command would run after the caller had already decided without it.
 * - nothing is resent after a reconnect (a lease charged twice is worse than one not charged).
 * - a command that times out on a ready connection drops that connection (a stalled or half-open
 *   peer); ioredis reconnects in the background, never on a caller's time.
 * - TLS (`rediss://`) is verified before anything is written, so AUTH never reaches a server that
 *   cannot prove it is the right one; `tls.ca` pins the CA.
 *
 * The URL is `redis://[user:password@]host[:port][/db]` or `rediss://…`. Errors never quote it.
 */
export class RedisClient {
  private readonly redis: Redis;
  private readonly timeoutMs: number;
  private lastError?: string;
  private closed = false;
  private connectionWait?: Promise<void>;

  constructor(url: string, opts: RedisClientOptions) {
    this.timeoutMs = opts.timeoutMs;
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const db = Number(target.pathname.replace(/^\//, '') || 0);
    this.redis = new Redis({
      host,
      port: Number(target.port || 6379),
      username: target.username ? decodeURIComponent(target.username) : undefined,
      password: target.password ? decodeURIComponent(target.password) : undefined,
      db,
      tls:
        target.protocol === 'rediss:'
          ? {
              rejectUnauthorized: true,
              ...(opts.tls?.ca ? { ca: opts.tls.ca } : {}),
              ...(opts.tls?.servername ? { servername: opts.tls.servername } : {}),
            }
          : undefined,
      protocol: 2,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      commandTimeout: this.timeoutMs,
      connectTimeout: Math.max(1_000, this.timeoutMs),
      // Reconnects in the background, soon after a restart and at most once a second while down.
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
      disableClientInfo: true,
    });
    // Connection errors reach callers through their commands (as `unreachable: <why>`); ioredis
    // would print an unhandled one to stderr itself.
    this.redis.on('error', (err: Error) => {
      this.lastError = describe(err);
    });
    this.redis.on('ready', () => {
      this.lastError = undefined;
    });
  }

  async command(args: readonly (string | number)[]): Promise<unknown> {
    if (this.closed) throw new RedisUnavailableError('redis client closed');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timedOut()), this.timeoutMs);
      timer.unref?.();
    });
    // The races below take its rejection; this keeps one that lands after both settled (the
    // timer fired while the catch below was still running) from being reported as unhandled.
    deadline.catch(() => {});
    try {
      await Promise.race([this.connected(), deadline]);
      const [name, ...rest] = args;
      return await Promise.race([this.redis.call(String(name), ...rest.map(String)), deadline]);
    } catch (err) {
      if (err instanceof HookgateError) throw err;
      if (err instanceof Error && err.name === 'ReplyError') throw new RedisReplyError(err.message);
      if (err instanceof Error && err.message === 'Command timed out') throw this.timedOut();
      // ioredis's own refusals: no writable connection ("Stream isn't writeable…"), closed.
      throw this.unreachable();
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.redis.disconnect();
  }

  /** Settles when a connection is ready, or rejects when the attempt in progress fails. */
  private connected(): Promise<void> {
    const status = this.redis.status;
    if (status === 'ready') return Promise.resolve();
    if (status === 'end') return Promise.reject(new RedisUnavailableError('redis client closed'));
    // Down, and waiting to try again: fail now rather than wait for the retry.
    if (status === 'reconnecting' || status === 'close') return Promise.reject(this.unreachable());
    this.connectionWait ??= new Promise<void>((resolve, reject) => {
      const done = () => {
        this.redis.off('ready', onReady);
        this.redis.off('close', onClose);
        this.connectionWait = undefined;
      };
      const onReady = () => {
        done();
        resolve();
      };
      const onClose = () => {
        done();
        reject(this.unreachable());
      };
      this.redis.on('ready', onReady);
      this.redis.on('close', onClose);
    });
    return this.connectionWait;
  }

  private unreachable(): RedisUnavailableError {
    return new RedisUnavailableError(`redis unreachable: ${this.lastError ?? 'not connected'}`);
  }

  /** The deadline passed: a ready connection that stalls is dropped, so the next one is fresh. */
  private timedOut(): RedisUnavailableError {
    if (this.redis.status === 'ready') {
      this.redis.disconnect(true);
      return new RedisUnavailableError(`redis did not answer within ${this.timeoutMs} ms`);
    }
    const why = this.lastError ? `; last error: ${this.lastError}` : '';
    return new RedisUnavailableError(
      `redis did not answer within ${this.timeoutMs} ms (not connected${why})`,
    );
  }
}

function describe(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  // A TLS refusal reads best with its reason (e.g. "self-signed certificate in certificate chain").
  if (code && code !== err.message && !/^E[A-Z]+$/.test(code)) return `${code}: ${err.message}`;
  return code ?? err.message;
}
