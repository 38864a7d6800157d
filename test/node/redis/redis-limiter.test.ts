import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_TIMEOUT_MS } from '../../../src/node/redis/redis-limiter.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';

/**
 * A gateway whose Redis accepts connections and never answers: every call is still answered,
 * within the Redis timeout, under limits enforced in-process.
 */
describe('a gateway whose Redis does not answer', () => {
  let blackHole: Server;
  const held: Socket[] = [];
  let gw: TestGateway;

  beforeAll(async () => {
    blackHole = createServer((s) => held.push(s));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as { port: number }).port;
    gw = await startTestGateway({
      server: { redis_url: `redis://:not-logged@127.0.0.1:${port}` },
      tenants: {
        acme: {
          ...tenantDoc({ h: { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } } }),
          limits: { calls_per_second: 0.001, burst: 2 },
        },
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    for (const s of held) s.destroy();
    await new Promise((r) => blackHole?.close(r));
  });

  it('answers every call without waiting past the timeout, limits it in-process, and says so', async () => {
    const token = await gw.token();
    const statuses: number[] = [];
    const started = Date.now();
    for (let id = 1; id <= 4; id++) {
      const res = await gw.post(
        'acme',
        'h',
        { jsonrpc: '2.0', id, method: 'hook.before_tool', params: { tool: 'x' } },
        token,
      );
      statuses.push(res.status);
    }
    // The black hole never answers: a call that waited for Redis past its timeout would never be
    // answered at all. One timeout (the first call), then in-process until Redis is tried again (1 s
    // later; a loaded machine may try it once more): seconds at most, whatever the load.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const metrics = await gw.metricsText();
    expect(metrics).toContain('hookgate_limiter_fallbacks_total 4');
    const warned = gw.logs.lines.filter((l) => l.msg?.startsWith('redis limiter unavailable'));
    expect(warned).toHaveLength(1);
    // The command's own timeout answered the first call.
    expect(warned[0].err).toContain(`did not answer within ${REDIS_TIMEOUT_MS} ms`);
    expect(gw.logs.text).not.toContain('not-logged');
    // A password over plain TCP is allowed on loopback only, and said to be a risk there.
    expect(gw.logs.lines.some((l) => l.msg?.startsWith('redis password sent over plain redis://'))).toBe(
      true,
    );
  });
});
