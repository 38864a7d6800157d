import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisClient } from '../../src/node/redis/redis-client.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../helpers/redis.js';
import { makeTestPki, type TestPki } from '../helpers/tls-certs.js';

/**
 * The gateway must not trust a Redis it cannot authenticate. A real redis-server serves TLS only,
 * with a certificate from a CA of the test's own, pinned in `server.redis_tls`. While it is down
 * an impostor takes its port with a certificate for the same names from another CA: the gateway
 * refuses the handshake, so the impostor never receives a byte (the password least of all), calls
 * are limited in-process meanwhile, and the genuine Redis is used again once it is back.
 */
const PASSWORD = 'tls-only-password-0123';
const SLOW = 0.001; // one call per 1000 s: within the test, calls only consume the burst

describe.skipIf(SKIP_REDIS)(`a gateway whose Redis is TLS with a pinned CA${redisNote}`, () => {
  let genuine: TestPki;
  let impostorPki: TestPki;
  let redis: TestRedis | undefined;
  let gw: TestGateway;
  let id = 1;

  const call = async () => {
    const res = await gw.post(
      'acme',
      'h',
      { jsonrpc: '2.0', id: id++, method: 'hook.before_tool', params: { tool: 'x' } },
      await gw.token(),
    );
    return res.status;
  };
  /** What the gateway has written to this Redis, read by a client that trusts its CA. */
  const keysIn = async (r: TestRedis) => {
    const c = new RedisClient(`rediss://:${PASSWORD}@127.0.0.1:${r.port}`, {
      timeoutMs: 10_000, // the test's own reader: an upper bound, far above a local Redis
      tls: { ca: genuine.ca, servername: 'redis.test' },
    });
    try {
      return (await c.command(['KEYS', 'hookgate:*'])) as string[];
    } finally {
      await c.close();
    }
  };
  const fallbacks = async () => {
    const line = (await gw.metricsText())
      .split('\n')
      .find((l) => l.startsWith('hookgate_limiter_fallbacks_total '));
    return line ? Number(line.split(' ')[1]) : 0;
  };

  beforeAll(async () => {
    genuine = makeTestPki('redis', { dns: ['redis.test'] });
    impostorPki = makeTestPki('impostor', { dns: ['redis.test'], ip: ['127.0.0.1'] });
    redis = await startRedis(['--requirepass', PASSWORD], { tls: genuine });
    gw = await startTestGateway({
      server: {
        redis_url: `rediss://:${PASSWORD}@127.0.0.1:${redis.port}`,
        redis_tls: { ca: `file:${genuine.caFile}`, servername: 'redis.test' },
      },
      tenants: {
        acme: {
          ...tenantDoc({ h: { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } } }),
          limits: { calls_per_second: SLOW, burst: 1000 },
        },
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await redis?.stop();
  });

  it('shares limits through the genuine Redis, verified by the pinned CA', async () => {
    // The gateway's first TLS connection may still be opening on a loaded machine (a call then
    // falls back in-process): wait for a call that goes through the genuine Redis.
    await expect
      .poll(
        async () => {
          const before = await fallbacks();
          expect(await call()).toBe(200);
          return (await fallbacks()) - before;
        },
        { timeout: 20_000 },
      )
      .toBe(0);
    expect(await keysIn(redis!)).toContain('hookgate:{acme}:rate');
  });

  it('refuses an impostor on the same port before sending anything, and returns to the genuine Redis', async () => {
    const port = redis!.port;
    await redis!.stop();
    const received: Buffer[] = [];
    const refused: string[] = [];
    let secured = 0;
    const impostor: TlsServer = createTlsServer({ key: impostorPki.key, cert: impostorPki.cert }, (s) => {
      secured++;
      s.on('data', (b: Buffer) => received.push(b));
      s.write('+OK\r\n'); // would it listen, it would be told anything
    });
    impostor.on('tlsClientError', (err) => refused.push(err.message));
    await new Promise<void>((resolve) => impostor.listen(port, '127.0.0.1', resolve));
    try {
      // The gateway reconnects on its own; it reaches the impostor and aborts the handshake.
      await expect.poll(() => refused.length + secured, { timeout: 15_000 }).toBeGreaterThan(0);
      expect(await call()).toBe(200); // decided in-process meanwhile
      // The gateway says why: its warning (one per 10 s, so wait for the next) names the certificate.
      await expect
        .poll(
          async () => {
            expect(await call()).toBe(200);
            return gw.logs.lines
              .filter((l) => l.msg?.startsWith('redis limiter unavailable'))
              .some((l) => /certificate|CERT/i.test(String(l.err)));
          },
          { timeout: 20_000, interval: 500 },
        )
        .toBe(true);
      expect(secured).toBe(0);
      expect(received).toEqual([]);
      expect(gw.logs.text).not.toContain(PASSWORD);
    } finally {
      await new Promise((r) => impostor.close(r));
    }

    redis = await startRedis(['--requirepass', PASSWORD], { port, tls: genuine });
    await expect
      .poll(
        async () => {
          await call();
          return (await keysIn(redis!)).includes('hookgate:{acme}:rate');
        },
        { timeout: 15_000 },
      )
      .toBe(true);
  }, 90_000);
});
