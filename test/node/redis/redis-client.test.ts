import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisClient, RedisReplyError, RedisUnavailableError } from '../../../src/node/redis/redis-client.js';
import { freePort, redisNote, SKIP_REDIS, startRedis, type TestRedis } from '../../helpers/redis.js';

// Far above what a command to a live Redis takes (ms), so only a Redis that does not answer meets it.
const client = (url: string, timeoutMs = 10_000) => new RedisClient(url, { timeoutMs });

describe.skipIf(SKIP_REDIS)(`RedisClient against redis-server${redisNote}`, () => {
  let redis: TestRedis;
  let secured: TestRedis;
  beforeAll(async () => {
    [redis, secured] = await Promise.all([startRedis(), startRedis(['--requirepass', 'pa ss:w@rd'])]);
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), secured?.stop()]);
  });

  it('answers strings, integers, nil, arrays and error replies, sent together, in order', async () => {
    const c = client(redis.url);
    const replies = await Promise.all([
      c.command(['SET', 'k', 'välue']),
      c.command(['GET', 'k']),
      c.command(['GET', 'missing']),
      c.command(['INCR', 'n']),
      c.command(['RPUSH', 'l', 'a', 'b']),
      c.command(['LRANGE', 'l', 0, -1]),
      c.command(['EVAL', 'return {0, tostring(1.5)}', 0]),
    ]);
    expect(replies).toEqual(['OK', 'välue', null, 1, 2, ['a', 'b'], [0, '1.5']]);
    await expect(c.command(['NOPE'])).rejects.toBeInstanceOf(RedisReplyError);
    // The limiter recognises a lost script by the reply's text.
    await expect(c.command(['EVALSHA', 'f'.repeat(40), 0])).rejects.toThrow(/^NOSCRIPT/);
    // An error reply does not break the connection.
    expect(await c.command(['PING'])).toBe('PONG');
    await c.close();
  });

  it('authenticates and selects the database from the URL', async () => {
    const url = `redis://:${encodeURIComponent('pa ss:w@rd')}@127.0.0.1:${secured.port}/3`;
    const c = client(url);
    expect(await c.command(['SET', 'x', '1'])).toBe('OK');
    expect(await c.command(['CLIENT', 'INFO'])).toMatch(/ db=3 /);
    await c.close();
    const wrong = client(`redis://:nope-wrong@127.0.0.1:${secured.port}`);
    const err = await wrong.command(['PING']).catch((e: Error) => e);
    expect(String(err)).toMatch(/WRONGPASS|NOAUTH/);
    expect(String(err)).not.toContain('nope-wrong');
    await wrong.close();
  });

  it('connects again after the server closed the connection', async () => {
    const c = client(redis.url);
    await c.command(['CLIENT', 'SETNAME', 'victim']);
    const other = client(redis.url);
    expect(await other.command(['CLIENT', 'KILL', 'SKIPME', 'yes', 'TYPE', 'normal'])).toBeGreaterThan(0);
    // The first command after the kill may fail at once (no queue); a later one finds a new connection.
    await expect.poll(() => c.command(['PING']).catch(() => 'failed'), { timeout: 10_000 }).toBe('PONG');
    expect(await c.command(['CLIENT', 'GETNAME'])).toBeNull();
    await Promise.all([c.close(), other.close()]);
  });
});

describe.skipIf(SKIP_REDIS)(`RedisClient when its Redis stalls, dies and comes back${redisNote}`, () => {
  it('fails each command within its timeout while Redis is stopped, and works once it resumes', async () => {
    const redis = await startRedis();
    const c = client(redis.url, 3000);
    try {
      expect(await c.command(['PING'])).toBe('PONG');
      process.kill(redis.pid, 'SIGSTOP');
      expect(String(await settle(c.command(['PING'])))).toMatch(/did not answer within 3000 ms/);
      // The stalled connection is dropped; commands while there is no ready one fail, unsent.
      const unsent = await Promise.all([1, 2, 3].map(() => settle(c.command(['INCR', 'n']))));
      for (const err of unsent) expect(err).toBeInstanceOf(RedisUnavailableError);
      // Nothing was queued for later: the INCRs never run, even after Redis resumes.
      process.kill(redis.pid, 'SIGCONT');
      await expect.poll(() => c.command(['PING']).catch(() => 'failed'), { timeout: 10_000 }).toBe('PONG');
      expect(await c.command(['GET', 'n'])).toBeNull();
    } finally {
      await c.close();
      await redis.stop();
    }
  });

  it('fails at once while Redis is dead, and reconnects when it is back on its port', async () => {
    const first = await startRedis();
    const c = client(first.url, 30_000);
    let second: TestRedis | undefined;
    try {
      expect(await c.command(['SET', 'where', 'first'])).toBe('OK');
      await first.stop();
      // Far less than the 30 s timeout: a dead Redis is known to be dead, nothing waits for it.
      const started = performance.now();
      const err = await settle(c.command(['PING']));
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(err).toBeInstanceOf(RedisUnavailableError);
      expect(String(err)).toMatch(/unreachable|closed|ECONNREFUSED/);
      second = await startRedis([], { port: first.port });
      await expect.poll(() => c.command(['PING']).catch(() => 'failed'), { timeout: 10_000 }).toBe('PONG');
      expect(await c.command(['GET', 'where'])).toBeNull(); // a new server, reached again
    } finally {
      await c.close();
      await second?.stop();
    }
  });
});

describe('RedisClient without a working server', () => {
  let blackHole: Server;
  let port: number;
  const held: Socket[] = [];
  const received: string[] = [];
  beforeAll(async () => {
    // Accepts connections and never answers: the case a timeout exists for.
    blackHole = createServer((s) => {
      held.push(s);
      s.on('data', (b) => received.push(String(b)));
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    port = (blackHole.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise((r) => blackHole.close(r));
  });

  it('rejects within its timeout when the server never answers, and never quotes the URL', async () => {
    const c = client(`redis://:secret-pw@127.0.0.1:${port}`, 200);
    const started = performance.now();
    const err = await settle(c.command(['PING']));
    // Its own 200 ms deadline answered (the message says which); the bound only catches a hang.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(String(err)).toMatch(/did not answer within 200 ms/);
    expect(String(err)).not.toContain('secret-pw');
    // The command itself was never written to a connection that was not ready.
    expect(received.join('')).not.toContain('PING');
    await c.close();
  });

  it('rejects at once when nothing listens', async () => {
    const c = client(`redis://127.0.0.1:${await freePort()}`, 30_000);
    const started = performance.now();
    await expect(c.command(['PING'])).rejects.toThrow(/unreachable: ECONNREFUSED/);
    // Refused, not timed out (the message says which), far before the 30 s timeout.
    expect(performance.now() - started).toBeLessThan(15_000);
    await c.close();
  });

  it('refuses commands once closed', async () => {
    const c = client(`redis://127.0.0.1:${port}`, 200);
    await c.close();
    await expect(c.command(['PING'])).rejects.toThrow(/closed/);
  });
});

function settle(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => v,
    (e: unknown) => e,
  );
}
