import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBridgeArgs, runBridge } from '../../src/bridge/index.js';
import { unreadSocket } from '../helpers/unread-socket.js';
import { TestGateway } from './helpers/gateway.js';
import { beforeToolParams, eventually, TOKEN } from './helpers/host.js';

/** The library entry, in process: what `bridgeCommand` wraps around process stdio. */

const gateways: TestGateway[] = [];
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.kill();
});

describe('runBridge', () => {
  it('runs on the streams it is given and reports its counters', async () => {
    const gw = await TestGateway.start({ token: TOKEN, handler: () => ({ result: { action: 'continue' } }) });
    gateways.push(gw);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out: string[] = [];
    stdout.on('data', (c: Buffer) => out.push(...c.toString().split('\n').filter(Boolean)));
    const options = parseBridgeArgs(['--url', gw.wsUrl, '--log-level', 'error'], { HOOKGATE_TOKEN: TOKEN });
    const handle = await runBridge({ ...options, stdin, stdout, stderr });

    stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{"name":"h","version":1,"modes":["tool"]}}\n',
    );
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'hook.before_tool', params: beforeToolParams('x') })}\n`,
    );
    stdin.write('{"jsonrpc":"2.0","method":"hook.runtime_event","params":{"id":"evt-1"}}\n');
    await eventually(() => out.length === 2, 10_000, 'two answers');
    expect(out.map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: '2.0', id: 1, result: { ok: true, name: 'h' } },
      { jsonrpc: '2.0', id: 2, result: { action: 'continue' } },
    ]);
    await eventually(() => gw.events.length === 1, 10_000, 'the event');

    expect(await handle.close()).toBe(0);
    expect(await handle.done).toBe(0);
    expect(handle.stats()).toMatchObject({
      calls: 1,
      failures: 0,
      eventsForwarded: 1,
      eventsDropped: 0,
      pending: 0,
    });
  }, 30_000);
});

describe('runBridge backpressure', () => {
  it('takes no new lines while PicoClaw is not reading stdout, and loses or reorders no answer', async () => {
    const gw = await TestGateway.start({ token: TOKEN, handler: () => ({ result: { action: 'continue' } }) });
    gateways.push(gw);
    const pipe = await unreadSocket();
    const stdin = new PassThrough();
    const options = parseBridgeArgs(['--url', gw.wsUrl, '--log-level', 'error'], { HOOKGATE_TOKEN: TOKEN });
    const handle = await runBridge({ ...options, stdin, stdout: pipe.writer, stderr: new PassThrough() });
    // hello is answered by the bridge itself and echoes the name: 256 KiB answers, no gateway needed.
    const name = 'n'.repeat(256 * 1024);
    const N = 200;
    for (let id = 1; id <= N; id++) {
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method: 'hook.hello', params: { name, version: 1, modes: ['tool'] } })}\n`,
      );
      await new Promise((r) => setImmediate(r));
    }
    // Stopped taking lines: the bridge paused its stdin, with what it holds bounded.
    await expect.poll(() => stdin.isPaused()).toBe(true);
    expect(pipe.writer.writableLength).toBeLessThan(4 * 1024 * 1024);

    const ids: number[] = [];
    let buffer = '';
    pipe.reader.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl !== -1) {
        ids.push(JSON.parse(buffer.slice(0, nl)).id);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
      }
    });
    pipe.reader.resume();
    await expect.poll(() => ids.length, { timeout: 15_000 }).toBe(N);
    expect(ids).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(await handle.close()).toBe(0);
    pipe.close();
  }, 30_000);
});
