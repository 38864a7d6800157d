import { describe, expect, it } from 'vitest';
import { MIN_REMEMBERED_UNITS, rememberParamsText } from '../../src/core/params-text.js';
import { JsonRpcPeer, type LineTransport, PeerError } from '../../src/core/peer.js';
import { SENT } from '../../src/core/transport.js';

/** A transport that takes lines of bytes (as the stdio backend's does) and records both forms. */
function lineSink() {
  const sent: Array<string | Uint8Array> = [];
  const transport: LineTransport = {
    start: async () => {},
    close: async () => {},
    send(message: string) {
      sent.push(message);
      return SENT;
    },
    sendLine(line: Uint8Array) {
      sent.push(line);
      return SENT;
    },
  };
  return { transport, sent };
}

describe('JsonRpcPeer on a transport that takes lines of bytes', () => {
  it('sends received params as the UTF-8 of the same line, non-ASCII and lone surrogates included', () => {
    const { transport, sent } = lineSink();
    const peer = new JsonRpcPeer(transport, { idPrefix: 'g' });
    // Escapes stay escapes; é, an astral character and a lone surrogate are encoded as TextEncoder
    // (and a stream write of the string) would encode them.
    const params = `{ "s": "\\u00e9 é 🌦 \ud800 x", "long": "${'a'.repeat(MIN_REMEMBERED_UNITS)}" }`;
    const received = `{"jsonrpc":"2.0","id":7,"method":"hook.before_llm","params":${params}}`;
    const msg = JSON.parse(received);
    rememberParamsText(msg, received);
    void peer.call('hook.before_llm', msg.params, 1000).catch(() => {});
    expect(sent).toHaveLength(1);
    const line = sent[0];
    expect(line).toBeInstanceOf(Uint8Array);
    const expected = `{"jsonrpc":"2.0","id":"g1","method":"hook.before_llm","params":${params}}\n`;
    expect(Buffer.from(line as Uint8Array).equals(Buffer.from(expected, 'utf8'))).toBe(true);
    peer.failAll(new PeerError('PEER_CLOSED', 'done'));
  });

  it('sends serialised params (small or changed ones) as text, for the transport to frame', () => {
    const { transport, sent } = lineSink();
    const peer = new JsonRpcPeer(transport, { idPrefix: 'g' });
    void peer.call('hook.before_tool', { tool: 'get_weather' }, 1000).catch(() => {});
    expect(sent).toEqual([
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'g1',
        method: 'hook.before_tool',
        params: { tool: 'get_weather' },
      }),
    ]);
    peer.failAll(new PeerError('PEER_CLOSED', 'done'));
  });

  it('fails the call PEER_SEND_FAILED when the line cannot be queued', async () => {
    const { transport } = lineSink();
    transport.sendLine = () => Promise.reject(new Error('hook stdin is closed'));
    const peer = new JsonRpcPeer(transport, { idPrefix: 'g' });
    const params = `{"long":"${'a'.repeat(MIN_REMEMBERED_UNITS)}"}`;
    const received = `{"jsonrpc":"2.0","id":7,"method":"hook.before_llm","params":${params}}`;
    const msg = JSON.parse(received);
    rememberParamsText(msg, received);
    await expect(peer.call('hook.before_llm', msg.params, 1000)).rejects.toMatchObject({
      code: 'PEER_SEND_FAILED',
    });
    expect(peer.inFlight).toBe(0);
  });
});
