import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisClient, RedisReplyError } from '../../src/node/redis-client.js';
import { freePort, redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../helpers/redis.js';

describe.skipIf(SKIP_REDIS)(`RedisClient against redis-server${redisNote}`, () => {
  let redis: TestRedis;
  let secured: TestRedis;
  beforeAll(async () => {
    [redis, secured] = await Promise.all([startRedis(), startRedis(['--requirepass', 'pa ss:w@rd'])]);
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), secured?.stop()]);
  });

  it('speaks RESP: strings, integers, nil, arrays, errors, pipelined in order', async () => {
    const c = new RedisClient(redis.url, 1000);
    const replies = await Promise.all([
      c.command(['SET', 'k', 'välue']),
      c.command(['GET', 'k']),
      c.command(['GET', 'missing']),
      c.command(['INCR', 'n']),
      c.command(['RPUSH', 'l', 'a', 'b']),
      c.command(['LRANGE', 'l', 0, -1]),
    ]);
    expect(replies).toEqual(['OK', 'välue', null, 1, 2, ['a', 'b']]);
    await expect(c.command(['NOPE'])).rejects.toBeInstanceOf(RedisReplyError);
    // An error reply does not break the connection.
    expect(await c.command(['PING'])).toBe('PONG');
    await c.close();
  });

  it('authenticates and selects the database from the URL', async () => {
    const url = `redis://:${encodeURIComponent('pa ss:w@rd')}@127.0.0.1:${secured.port}/3`;
    const c = new RedisClient(url, 1000);
    expect(await c.command(['SET', 'x', '1'])).toBe('OK');
    expect(await c.command(['CLIENT', 'INFO'])).toMatch(/ db=3 /);
    await c.close();
    const wrong = new RedisClient(`redis://:nope@127.0.0.1:${secured.port}`, 1000);
    const err = await wrong.command(['PING']).catch((e: Error) => e);
    expect(String(err)).toMatch(/auth failed|WRONGPASS|NOAUTH/);
    expect(String(err)).not.toContain('nope');
    await wrong.close();
  });

  it('reconnects after the server closes the connection', async () => {
    const c = new RedisClient(redis.url, 1000);
    await c.command(['CLIENT', 'SETNAME', 'victim']);
    const other = new RedisClient(redis.url, 1000);
    await other.command(['CLIENT', 'KILL', 'SKIPME', 'yes', 'TYPE', 'normal']);
    await new Promise((r) => setTimeout(r, 50));
    expect(await c.command(['PING'])).toBe('PONG');
    await Promise.all([c.close(), other.close()]);
  });
});

describe('RedisClient without a working server', () => {
  let blackHole: Server;
  let port: number;
  const held: Socket[] = [];
  beforeAll(async () => {
    // Accepts connections and never answers: the case a timeout exists for.
    blackHole = createServer((s) => held.push(s));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    port = (blackHole.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise((r) => blackHole.close(r));
  });

  it('rejects within its timeout when the server never answers', async () => {
    const c = new RedisClient(`redis://:secret-pw@127.0.0.1:${port}`, 200);
    const started = Date.now();
    const err = await c.command(['PING']).catch((e: Error) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(String(err)).toMatch(/did not answer within 200 ms/);
    expect(String(err)).not.toContain('secret-pw');
    await c.close();
  });

  it('rejects at once when nothing listens', async () => {
    const c = new RedisClient(`redis://127.0.0.1:${await freePort()}`, 5000);
    const started = Date.now();
    await expect(c.command(['PING'])).rejects.toThrow(/unreachable: ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(1000);
    await c.close();
  });
});
