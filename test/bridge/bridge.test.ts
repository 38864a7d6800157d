import { describe, expect, it } from 'vitest';
import { StdioBridge } from '../../src/bridge/bridge.js';
import { EventForwarder } from '../../src/bridge/events.js';
import { parseBridgeArgs } from '../../src/bridge/index.js';
import { createLogger } from '../../src/bridge/log.js';
import type { ForwardedRequest, Upstream } from '../../src/bridge/upstream.js';

/** StdioBridge against an upstream the test controls, writing to a sink that counts writes. */
function setup(answer: (method: string, params: unknown) => Promise<unknown>) {
  const sent: Array<{ method: string; forwarded?: ForwardedRequest }> = [];
  const upstream: Upstream = {
    start() {},
    call(method, params, _timeoutMs, forwarded) {
      sent.push({ method, forwarded });
      return answer(method, params);
    },
    notify: async () => {},
    close: async () => {},
  };
  const writes: string[] = [];
  const stdout = { write: (chunk: string) => writes.push(chunk) };
  const log = createLogger({ write() {} }, 'error', []);
  const options = parseBridgeArgs(['--url', 'ws://127.0.0.1:1/v1/tenants/a/hooks/h/ws'], {
    HOOKGATE_TOKEN: 'test-token',
  });
  const bridge = new StdioBridge(options, upstream, new EventForwarder(async () => {}, log), stdout, log);
  const lines = () =>
    writes
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  return { bridge, sent, writes, lines };
}

const call = (id: number, extra = '') =>
  `{"jsonrpc":"2.0", "id":${id},"method":"hook.before_tool","params":{"tool":"x","arguments":{}}${extra}}`;

describe('StdioBridge', () => {
  it('hands the upstream the host line as written, with the host id', async () => {
    const { bridge, sent, lines } = setup(async () => ({ action: 'continue' }));
    const line = call(7, ',"extra":{"kept":true}');
    bridge.handleLine(line);
    await expect.poll(() => lines()).toEqual([{ jsonrpc: '2.0', id: 7, result: { action: 'continue' } }]);
    expect(sent).toEqual([{ method: 'hook.before_tool', forwarded: { id: 7, text: line } }]);
  });

  it('does not forward a line that is not JSON-RPC 2.0 as it is; the upstream re-serialises it', async () => {
    const { bridge, sent, lines } = setup(async () => ({ action: 'continue' }));
    bridge.handleLine('{"id":3,"method":"hook.before_tool","params":{"tool":"x"}}');
    await expect.poll(() => lines()).toHaveLength(1);
    expect(sent).toEqual([{ method: 'hook.before_tool', forwarded: undefined }]);
    expect(lines()[0].id).toBe(3);
  });

  it('writes the answers settled in one tick with one write, in order', async () => {
    const { bridge, writes, lines } = setup(async () => ({ action: 'continue' }));
    for (let id = 1; id <= 5; id++) bridge.handleLine(call(id));
    await expect.poll(() => lines().map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
    expect(writes).toHaveLength(1);
  });

  it('writes the answer of the only call in flight in the turn it settles, without waiting for a tick', async () => {
    let settle!: (v: unknown) => void;
    const { bridge, writes, lines } = setup(() => new Promise((r) => (settle = r)));
    bridge.handleLine(call(1));
    settle({ action: 'continue' });
    // Microtasks only: a write deferred by process.nextTick cannot run before this loop ends.
    for (let i = 0; i < 10; i++) await null;
    expect(writes).toHaveLength(1);
    expect(lines()).toEqual([{ jsonrpc: '2.0', id: 1, result: { action: 'continue' } }]);
  });

  it('still answers calls that settle in different ticks', async () => {
    const { bridge, writes, lines } = setup(
      (_m, params) =>
        new Promise((r) => setTimeout(() => r({ action: 'continue' }), (params as any).arguments.ms)),
    );
    bridge.handleLine(call(1).replace('"arguments":{}', '"arguments":{"ms":1}'));
    bridge.handleLine(call(2).replace('"arguments":{}', '"arguments":{"ms":40}'));
    await expect.poll(() => lines().map((m) => m.id)).toEqual([1, 2]);
    expect(writes).toHaveLength(2);
  });
});
