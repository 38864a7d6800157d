import { describe, expect, it } from 'vitest';
import { heapAfterGc } from '../helpers/heap.js';
import { lazyMessage } from '../../src/core/lazy-params.js';
import { JsonRpcPeer, type LineTransport, PeerError } from '../../src/core/peer.js';
import { SENT, type Transport } from '../../src/core/transport.js';

const MIB = 1024 * 1024;

/** A transport that hands every message over at once and keeps none, as a stdio pipe with room. */
function sink(): Transport & { sentUnits: number } {
  const t = {
    sentUnits: 0,
    start: async () => {},
    close: async () => {},
    send(message: string) {
      t.sentUnits += message.length;
      return SENT;
    },
  };
  return t;
}

describe('JsonRpcPeer memory', () => {
  // Each 64 KiB call in flight kept its request text (and the received message its params were
  // cut from) until the hook answered, so under load the young-generation collector copied and
  // promoted them at every scavenge. Large texts make the difference plain.
  it('keeps no request text alive while a call waits for its answer', async () => {
    const transport = sink();
    const peer = new JsonRpcPeer(transport, { idPrefix: 'g' });
    const calls = 8;
    const before = heapAfterGc();
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < calls; i++) {
      // A fresh string of 4 MiB on the JS heap per call, referenced by nothing but the call
      // (JSON.parse copies it there; Buffer#toString of that size would make it external).
      const filler = JSON.parse(`"${String.fromCharCode(0x61 + i).repeat(4 * MIB)}"`) as string;
      const text = `{"jsonrpc":"2.0","id":"c${i}","method":"m","params":{"x":"${filler}"}}`;
      pending.push(peer.call('m', {}, 60_000, { id: `c${i}`, text }).catch(() => undefined));
    }
    expect(transport.sentUnits).toBeGreaterThan(calls * 4 * MIB);
    // Let the job that made the strings end before collecting.
    await new Promise((resolve) => setImmediate(resolve));
    const held = heapAfterGc() - before;
    expect(peer.inFlight).toBe(calls);
    // Kept, the texts are 32 MiB; a pending call itself needs a few hundred bytes (the last
    // text may still sit in this function's frame: 4 MiB).
    expect(held).toBeLessThan(10 * MIB);
    peer.failAll(new PeerError('PEER_CLOSED', 'done'));
    await Promise.all(pending);
  });

  // A large request from a client (WebSocket or HTTP) has lazy params: a slice of the client's
  // message. Sent to a stdio hook as a line of UTF-8, the call kept that message alive until the
  // hook answered; under load every full collection promoted it, and after V8's memory reducer had
  // run that kept a full collection going every 60-80 ms (see keepAsUtf8).
  it('keeps no received message alive while a lazy request waits for a stdio hook', async () => {
    const lines: Uint8Array[] = [];
    const transport: LineTransport = {
      start: async () => {},
      close: async () => {},
      send: () => SENT,
      sendLine(line: Uint8Array) {
        lines.push(line);
        return SENT;
      },
    };
    const peer = new JsonRpcPeer(transport, { idPrefix: 'g' });
    const calls = 8;
    const before = heapAfterGc();
    const pending: Array<Promise<unknown>> = [];
    const params: Array<Record<string, unknown>> = [];
    for (let i = 0; i < calls; i++) {
      const filler = JSON.parse(`"${String.fromCharCode(0x61 + i).repeat(4 * MIB)}"`) as string;
      const message = lazyMessage(`{"jsonrpc":"2.0","id":${i},"method":"m","params":{"x":"${filler}"}}`)!;
      params.push(message.params as Record<string, unknown>);
      pending.push(peer.call('m', message.params, 60_000).catch(() => undefined));
    }
    // Every line is out of the JS heap, as UTF-8.
    expect(lines.map((l) => l.length)).toEqual(Array(calls).fill(expect.any(Number)));
    expect(lines.reduce((n, l) => n + l.length, 0)).toBeGreaterThan(calls * 4 * MIB);
    await new Promise((resolve) => setImmediate(resolve));
    const held = heapAfterGc() - before;
    expect(peer.inFlight).toBe(calls);
    // Kept, the messages are 32 MiB (their text is one byte a character on the heap).
    expect(held).toBeLessThan(10 * MIB);
    // The params still read as they were sent.
    expect((params[3].x as string).length).toBe(4 * MIB);
    expect((params[3].x as string)[0]).toBe('d');
    peer.failAll(new PeerError('PEER_CLOSED', 'done'));
    await Promise.all(pending);
  });
});
