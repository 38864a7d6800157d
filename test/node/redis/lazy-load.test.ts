/**
 * ioredis is loaded only by a gateway that uses Redis. It subclasses String (its RESP3
 * VerbatimString), which leaves String.prototype in V8's dictionary mode for the whole process:
 * string methods on every call then cost about twice as much. A real gateway process is asked, with
 * V8's own %HasFastProperties, once it listens.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tenantDoc } from '../../helpers/gateway.js';
import { type ProbedGateway, serveProbed } from '../../helpers/probed-gateway.js';
import { redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../../helpers/redis.js';

const PROBE = join(REPO, 'test', 'helpers', 'string-mode-probe.mjs');
let gw: ProbedGateway | undefined;

afterEach(() => {
  gw?.kill();
  gw = undefined;
});

/** Starts `hookgate serve` with these arguments, then asks the probe once it listens. */
async function stringPrototypeFast(args: string[]): Promise<boolean> {
  gw = await serveProbed(PROBE, args, ['--allow-natives-syntax']);
  return (await gw.ask('string-prototype-fast')) === 'true';
}

describe('a gateway loads ioredis only when it uses Redis', () => {
  it('without Redis (the demo), String.prototype keeps its fast properties', async () => {
    expect(await stringPrototypeFast(['--demo', '--port', '0'])).toBe(true);
  });

  describe.skipIf(SKIP_REDIS)(`with server.redis_url${redisNote}`, () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(() => redis?.stop());

    it('the gateway that uses Redis loads it (and the probe sees the slow mode)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'hookgate-lazy-redis-'));
      const file = join(dir, 'hookgate.json');
      const hooks = { m: { backend: { type: 'module', module: join(REPO, 'examples', 'weather-hook.ts') } } };
      writeFileSync(
        file,
        JSON.stringify({ server: { redis_url: redis.url }, tenants: { acme: tenantDoc(hooks) } }),
      );
      expect(await stringPrototypeFast(['--config', file, '--port', '0'])).toBe(false);
    });
  });
});
