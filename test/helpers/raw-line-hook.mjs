#!/usr/bin/env node
// A stdio hook that answers every call `continue` and tells what it was sent: the `params` text
// of each request line exactly as it arrived, cut out of the line by hand (not parsed and
// serialised again), one stderr line each (the gateway logs it as `hook stderr`; a long one as its
// SHA-256). A before_llm
// for the model "rewrite-me" is answered `modify` instead (below).
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';

/** Long texts are told by their SHA-256 (a stderr line is cut at the gateway's log limit). */
const told = (text) =>
  text !== null && text.length > 1000 ? `sha256:${createHash('sha256').update(text).digest('hex')}` : text;

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const at = line.indexOf('"params":');
  const received = at < 0 ? null : line.slice(at + '"params":'.length, -1);
  if (msg.method !== 'hook.hello') process.stderr.write(`${told(received)}\n`);
  let result = msg.method === 'hook.hello' ? { ok: true } : { action: 'continue' };
  // A before_llm for the model "rewrite-me" is answered with the whole request back, its model
  // changed: what the gateway then sends on depends on the grants and on the request it kept.
  if (msg.method === 'hook.before_llm' && msg.params.model === 'rewrite-me') {
    result = { action: 'modify', request: { ...msg.params, model: 'rewritten' } };
  }
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`);
});
