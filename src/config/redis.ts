import type { ConfigIssue } from './errors.js';
import type { ServerSettings } from './runtime.js';
import type { ConfigDocument } from './schema.js';

type Resolve = (ref: string, path: string) => string | undefined;

/**
 * `server.redis_url` and `server.redis_tls` as the limiter uses them. Messages never quote the URL:
 * it may carry a password.
 *
 * A password is refused over plain `redis://` to any host but loopback: it would cross the network
 * in clear, and whoever answers on that address (a restart, a moved IP, a spoofed route) would
 * receive it and could feed the limiter its own answers. `rediss://` verifies the server before the
 * password is sent; `redis_tls.ca` narrows that to one CA.
 */
export function compileRedis(
  server: ConfigDocument['server'],
  resolve: Resolve,
  issues: ConfigIssue[],
): Pick<ServerSettings, 'redisUrl' | 'redisTls'> {
  let redisUrl: string | undefined;
  if (server.redis_url !== undefined) {
    const value = resolve(server.redis_url, 'server.redis_url');
    if (value !== undefined) redisUrl = checkRedisUrl(value, 'server.redis_url', issues);
  }
  const tlsDoc = server.redis_tls;
  if (!tlsDoc) return { redisUrl };
  const path = 'server.redis_tls';
  if (server.redis_url === undefined) {
    issues.push({ path, message: 'needs server.redis_url' });
    return { redisUrl };
  }
  if (redisUrl && !redisUrl.startsWith('rediss://')) {
    issues.push({ path, message: 'needs a rediss:// server.redis_url (TLS)' });
    return { redisUrl };
  }
  let ca: string | undefined;
  if (tlsDoc.ca !== undefined) {
    if (!tlsDoc.ca.startsWith('file:') && !tlsDoc.ca.startsWith('env:')) {
      issues.push({
        path: `${path}.ca`,
        message: 'must be a reference to PEM (file:PATH or env:NAME), not the certificate itself',
      });
    } else {
      ca = resolve(tlsDoc.ca, `${path}.ca`);
      if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----')) {
        issues.push({
          path: `${path}.ca`,
          message: 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)',
        });
        ca = undefined;
      }
    }
  }
  return { redisUrl, redisTls: { ca, servername: tlsDoc.servername } };
}

/** Checks a resolved Redis URL: scheme, host, database, and no clear-text password off loopback. */
export function checkRedisUrl(url: string, path: string, issues: ConfigIssue[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    issues.push({ path, message: 'not a URL (expected redis://[user:password@]host[:port][/db])' });
    return undefined;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    issues.push({ path, message: 'must start with redis:// or rediss://' });
    return undefined;
  }
  if (!parsed.hostname) {
    issues.push({ path, message: 'has no host' });
    return undefined;
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,5}$/.test(db)) {
    issues.push({ path, message: 'the path must be a database number (e.g. /0)' });
    return undefined;
  }
  if (sendsPasswordInClear(parsed) && !isLoopback(parsed.hostname)) {
    issues.push({
      path,
      message:
        'carries a password over plain redis:// to a host that is not loopback: it would cross the ' +
        'network in clear; use rediss:// (and server.redis_tls.ca to pin the CA)',
    });
    return undefined;
  }
  return url;
}

/** A `redis://` URL with a password: AUTH would be sent unencrypted and unauthenticated. */
export function sendsPasswordInClear(url: URL): boolean {
  return url.protocol === 'redis:' && url.password !== '';
}

/** `localhost`, 127.0.0.0/8 or ::1 (as WHATWG URL spells hosts). */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]';
}
