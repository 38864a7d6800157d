import { describe, expect, it } from 'vitest';
import { InMemoryTransport } from '../../src/core/memory-transport.js';
import { MIN_REMEMBERED_UNITS, rememberParamsText } from '../../src/core/params-text.js';
import { JsonRpcPeer, PeerError } from '../../src/core/peer.js';

/** A peer on one end of an in-memory pair; the test plays the other end by hand. */
function pair() {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const seen: any[] = [];
  b.onmessage = (t) => seen.push(JSON.parse(t));
  const stray: string[] = [];
  const peer = new JsonRpcPeer(a, { onstray: (_t, why) => stray.push(why) });
  const reply = (msg: unknown) => b.send(JSON.stringify(msg));
  return { peer, seen, reply, stray, b };
}

describe('JsonRpcPeer', () => {
  it('allocates integer ids from 1, as PicoClaw does, and matches replies in any order', async () => {
    const { peer, seen, reply } = pair();
    const one = peer.call('hook.before_tool', { n: 1 }, 1000);
    const two = peer.call('hook.before_tool', { n: 2 }, 1000);
    await expect.poll(() => seen.length).toBe(2);
    expect(seen.map((m) => m.id)).toEqual([1, 2]);
    await reply({ jsonrpc: '2.0', id: 2, result: 'second' });
    await reply({ jsonrpc: '2.0', id: 1, result: 'first' });
    expect(await Promise.all([one, two])).toEqual(['first', 'second']);
  });

  it('fails a call at its deadline and drops the late reply', async () => {
    const { peer, reply, stray } = pair();
    await expect(peer.call('hook.approve_tool', {}, 20)).rejects.toMatchObject({ code: 'PEER_TIMEOUT' });
    await reply({ jsonrpc: '2.0', id: 1, result: { approved: true } });
    await expect.poll(() => stray).toEqual(['response to an unknown id']);
  });

  it('turns an error reply into PEER_ERROR_REPLY and ignores a string id (PicoClaw drops it too)', async () => {
    const { peer, reply, stray } = pair();
    const call = peer.call('hook.before_tool', {}, 200);
    await reply({ jsonrpc: '2.0', id: '1', result: { action: 'deny_tool' } });
    await reply({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'down' } });
    await expect(call).rejects.toMatchObject({ code: 'PEER_ERROR_REPLY', message: 'down' });
    expect(stray).toEqual(['response to an unknown id']);
  });

  it('fails every pending call at once when the transport closes, and refuses new ones', async () => {
    const { peer, b } = pair();
    const pending = peer.call('hook.before_tool', {}, 10_000);
    await b.close();
    await expect(pending).rejects.toBeInstanceOf(PeerError);
    await expect(peer.call('hook.before_tool', {}, 10_000)).rejects.toMatchObject({ code: 'PEER_CLOSED' });
  });

  it('sends a forwarded request as it is under its own id, and matches the reply to it', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const texts: string[] = [];
    b.onmessage = (t) => texts.push(t);
    const peer = new JsonRpcPeer(a, { idPrefix: 'own-' });
    const line = '{"jsonrpc":"2.0",  "id":42,"method":"hook.before_tool","params":{"tool":"x"},"extra":1}';
    const forwarded = peer.call('hook.before_tool', { tool: 'x' }, 1000, { id: 42, text: line });
    const own = peer.call('hook.hello', {}, 1000);
    await expect.poll(() => texts.length).toBe(2);
    expect(texts[0]).toBe(line);
    expect(JSON.parse(texts[1]).id).toBe('own-1');
    await b.send(JSON.stringify({ jsonrpc: '2.0', id: 'own-1', result: 'mine' }));
    await b.send(JSON.stringify({ jsonrpc: '2.0', id: 42, result: 'theirs' }));
    expect(await Promise.all([forwarded, own])).toEqual(['theirs', 'mine']);
  });

  it('re-serialises a forwarded request whose id is in flight, looks like ours, or when ids are plain numbers', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const seen: any[] = [];
    b.onmessage = (t) => seen.push(JSON.parse(t));
    const peer = new JsonRpcPeer(a, { idPrefix: 'own-' });
    const text = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'm', params: { id } });
    const quiet = (p: Promise<unknown>) => void p.catch(() => {});
    quiet(peer.call('m', { id: 5 }, 1000, { id: 5, text: text(5) }));
    quiet(peer.call('m', { again: 5 }, 1000, { id: 5, text: text(5) }));
    quiet(peer.call('m', { id: 'own-9' }, 1000, { id: 'own-9', text: text('own-9') }));
    await expect.poll(() => seen.length).toBe(3);
    expect(seen.map((m) => m.id)).toEqual([5, 'own-1', 'own-2']);
    expect(seen[1].params).toEqual({ again: 5 });

    const plain = pair();
    quiet(plain.peer.call('m', { p: 1 }, 1000, { id: 77, text: text(77) }));
    await expect.poll(() => plain.seen.length).toBe(1);
    expect(plain.seen[0]).toEqual({ jsonrpc: '2.0', id: 1, method: 'm', params: { p: 1 } });
  });
  it('takes a reply without "jsonrpc" (PicoClaw never checks it), matching ids exactly, and still sends 2.0', async () => {
    const { peer, seen, b, stray } = pair();
    const approval = peer.call('hook.approve_tool', {}, 1000);
    const tool = peer.call('hook.before_tool', {}, 1000);
    await expect.poll(() => seen.length).toBe(2);
    expect(seen.every((m) => m.jsonrpc === '2.0')).toBe(true);
    // A string "1" is not the number 1; a reply with neither result nor error is nothing.
    await b.send('{"id":"1","result":{"approved":true}}');
    await b.send('{"id":2}');
    await b.send('{"id":1,"result":{"approved":false}}');
    await b.send('{"id":2,"error":{"code":-32000,"message":"down"}}');
    expect(await approval).toEqual({ approved: false });
    await expect(tool).rejects.toMatchObject({ code: 'PEER_ERROR_REPLY', message: 'down' });
    expect(stray).toEqual(['response to an unknown id', 'not a request, notification or response']);
  });

  it('still refuses requests and notifications without "jsonrpc"', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const requests: unknown[] = [];
    const stray: string[] = [];
    new JsonRpcPeer(a, { onrequest: (m) => requests.push(m), onstray: (_t, why) => stray.push(why) });
    await b.send('{"id":7,"method":"hook.log","params":{}}');
    await b.send('{"jsonrpc":"2.0","method":"hook.log","params":{}}');
    await expect.poll(() => requests.length + stray.length).toBe(2);
    expect(requests).toHaveLength(1);
    expect(stray).toEqual(['jsonrpc must be "2.0"']);
  });

  it('with refuseDuplicateKeys, fails a call whose reply repeats a key (PEER_BAD_REPLY)', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const peer = new JsonRpcPeer(a, { refuseDuplicateKeys: true });
    const call = peer.call('hook.approve_tool', {}, 1000);
    const next = peer.call('hook.approve_tool', {}, 1000);
    await b.send('{"jsonrpc":"2.0","id":1,"result":{"approved":false,"Approved":true,"approved":false}}');
    await b.send('{"jsonrpc":"2.0","id":2,"result":{"approved":false,"Approved":true}}');
    await expect(call).rejects.toMatchObject({
      code: 'PEER_BAD_REPLY',
      message: expect.stringContaining('"approved"'),
    });
    expect(await next).toEqual({ approved: false, Approved: true });
  });

  it('sends received params byte-for-byte when nothing changed them, and serialises changed ones', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const texts: string[] = [];
    b.onmessage = (t) => texts.push(t);
    const peer = new JsonRpcPeer(a);
    const params = '{ "n": 12345678901234567890, "s": "\\u00e9 é", "e": 1E2 }';
    // Trailing spaces: shorter messages are left to JSON.stringify (MIN_REMEMBERED_UNITS).
    const received = `{"id":"c-7","jsonrpc":"2.0","method":"hook.before_llm","params":${params}}${' '.repeat(MIN_REMEMBERED_UNITS)}`;
    const msg = JSON.parse(received);
    rememberParamsText(msg, received);
    void peer.call('hook.before_llm', msg.params, 1000).catch(() => {});
    // What the grants changed is a new object: serialised as before.
    const changed = { ...msg.params, s: '' };
    rememberParamsText(msg, received);
    void peer.call('hook.before_llm', changed, 1000).catch(() => {});
    await expect.poll(() => texts.length).toBe(2);
    expect(texts[0]).toBe(`{"jsonrpc":"2.0","id":1,"method":"hook.before_llm","params":${params}}`);
    expect(texts[1]).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'hook.before_llm', params: changed }),
    );
    peer.failAll(new PeerError('PEER_CLOSED', 'done'));
  });
});
