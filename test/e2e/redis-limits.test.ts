import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { signDevToken } from '../../src/node/token.js';
import { fetchMetrics, REPO, SECRET, TEST_ADMIN_TOKEN } from '../helpers/gateway.js';
import { redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../helpers/redis.js';

/**
 * Two real gateway processes (`hookgate serve --config`) sharing one real Redis enforce one set of
 * limits together. A rate of 0.001 calls per second refills one call per 1000 s, so within the test
 * exactly the burst gets through, whichever replica takes the calls.
 */
const BIN = join(REPO, 'bin/hookgate.js');
const SLOW = 0.001;
const hook = (limits?: object) => ({
  backend: { type: 'module', module: join(REPO, 'test/helpers/slow-hook.ts') },
  tools: ['x', 'slow'],
  limits,
});
const auth = { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }] };
const DOC = {
  server: {
    port: 0,
    log_level: 'info',
    redis_url: 'env:HOOKGATE_REDIS_URL',
    admin_token: 'env:HOOKGATE_TEST_ADMIN_TOKEN',
  },
  tenants: {
    seq: { auth, limits: { calls_per_second: SLOW, burst: 5 }, hooks: { h: hook() } },
    burst: { auth, limits: { calls_per_second: SLOW, burst: 5 }, hooks: { h: hook() } },
    busy: { auth, hooks: { h: hook({ max_in_flight: 2 }) } },
  },
};

/** Every child started, so none outlives the file even when setup fails half-way. */
const replicas: ChildProcess[] = [];

interface Replica {
  child: ChildProcess;
  url: string;
  out: () => string;
}

async function startReplica(configFile: string, redisUrl: string): Promise<Replica> {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', configFile, '--port', '0'], {
    cwd: REPO,
    env: { ...process.env, HOOKGATE_REDIS_URL: redisUrl, HOOKGATE_TEST_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (b) => {
    out += b;
  });
  child.stderr?.on('data', (b) => {
    out += b;
  });
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica did not start:\n${out}`)), 20_000);
    const check = () => {
      if (!out.includes('hookgate listening')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica exited (${code}):\n${out}`));
    });
  });
  replicas.push(child);
  await started;
  const line = out.split('\n').find((l) => l.includes('hookgate listening'))!;
  return { child, url: JSON.parse(line).url, out: () => out };
}

async function stopReplica(r: Replica | undefined): Promise<void> {
  if (!r || r.child.exitCode !== null) return;
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  await exited;
}

describe.skipIf(SKIP_REDIS)(`two gateways sharing Redis${redisNote}`, () => {
  let redis: TestRedis;
  let a: Replica;
  let b: Replica;
  const config = compileConfig(DOC, (r) =>
    r === 'env:HOOKGATE_REDIS_URL' ? 'redis://127.0.0.1:1' : r.startsWith('env:') ? TEST_ADMIN_TOKEN : r,
  );
  const token = (tenant: string) =>
    signDevToken(config.tenants.get(tenant)!, { hooks: ['*'], ttlSeconds: 600 });
  let id = 1;
  const call = async (replica: Replica, tenant: string, tool = 'x') =>
    fetch(`${replica.url}/v1/tenants/${tenant}/hooks/h`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token(tenant)}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'hook.before_tool', params: { tool } }),
    });
  const metric = async (replica: Replica, line: string) => {
    const text = await fetchMetrics(replica.url);
    const found = text.split('\n').find((l) => l.startsWith(`${line} `));
    return found ? Number(found.slice(line.length + 1)) : 0;
  };

  beforeAll(async () => {
    redis = await startRedis();
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-redis-'));
    const file = join(dir, 'hookgate.json');
    writeFileSync(file, JSON.stringify(DOC));
    [a, b] = await Promise.all([startReplica(file, redis.url), startReplica(file, redis.url)]);
  }, 40_000);

  afterAll(async () => {
    await Promise.all([stopReplica(a), stopReplica(b)]);
    await redis?.stop();
  });

  it('lets exactly the burst through calls taken in turn by both replicas', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call(i % 2 === 0 ? a : b, 'seq')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    const refused = (r: Replica) =>
      metric(r, 'hookgate_rate_limited_total{tenant="seq",hook="h",limit="tenant_rate"}');
    expect((await refused(a)) + (await refused(b))).toBe(7);
    // Neither replica fell back to deciding alone.
    expect(a.out() + b.out()).not.toContain('redis limiter unavailable');
  });

  it('lets exactly the burst through concurrent calls split across both replicas', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? a : b, 'burst')),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const refusedOne = responses.find((r) => r.status === 429)!;
    expect(Number(refusedOne.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refusedOne.json()).toMatchObject({ error: { code: 'too_many_requests' } });
  });

  it('counts calls in flight on one replica against the other', async () => {
    const held = [call(a, 'busy', 'slow'), call(a, 'busy', 'slow')];
    await expect.poll(() => metric(a, 'hookgate_calls_in_flight{tenant="busy",hook="h"}')).toBe(2);
    const over = await call(b, 'busy');
    expect(over.status).toBe(429);
    expect((await over.json()).error.message).toContain('hook_in_flight');
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    // Released on Redis as the slow calls ended: the other replica gets through again.
    expect((await call(b, 'busy')).status).toBe(200);
  });
});
