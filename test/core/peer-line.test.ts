import { describe, expect, it } from 'vitest';
import { LAZY_MIN_UNITS, lazyMessage } from '../../src/core/lazy-params.js';
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

  // A lazy request's params give up their text for the line's bytes once sent (see keepAsUtf8 in
  // core/lazy-params.ts); what the gateway reads of them afterwards, to check a hook's modify,
  // must be what JSON.parse reads from the message, whatever its characters.
  it.each([
    ['ASCII', 'plain text'],
    ['two-, three- and four-byte characters and escapes', 'h\u00e9llo € 🌦 \\u00e9 \\" \\\\ \\ud83c\\udf26'],
    ['a lone surrogate (not given up: UTF-8 cannot carry it)', 'a \ud800 b'],
  ])('reads a lazy request params as JSON.parse does after sending them: %s', (_name, content) => {
    const { transport, sent } = lineSink();
    const peer = new JsonRpcPeer(transport, { idPrefix: 'g' });
    const params = `{"model":"m","messages":[{"role":"user","content":"${content}"}],"pad":"${'x'.repeat(LAZY_MIN_UNITS)}"}`;
    const received = `{"jsonrpc":"2.0","id":7,"method":"hook.before_llm","params":${params}}`;
    const message = lazyMessage(received)!;
    expect(message).toBeDefined();
    void peer.call('hook.before_llm', message.params, 1000).catch(() => {});
    expect(sent).toHaveLength(1);
    const expected = `{"jsonrpc":"2.0","id":"g1","method":"hook.before_llm","params":${params}}\n`;
    expect(Buffer.from(sent[0] as Uint8Array).equals(Buffer.from(expected, 'utf8'))).toBe(true);
    // Read after the send, member by member and whole.
    const parsed = JSON.parse(received).params;
    const lazy = message.params as Record<string, unknown>;
    expect(lazy.messages).toEqual(parsed.messages);
    expect({ ...lazy }).toEqual(parsed);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(parsed));
    peer.failAll(new PeerError('PEER_CLOSED', 'done'));
  });
});
