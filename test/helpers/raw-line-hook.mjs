#!/usr/bin/env node
// A stdio hook that answers every call `continue` and tells what it was sent: the `params` text
// of each request line exactly as it arrived, cut out of the line by hand (not parsed and
// serialised again), one stderr line each (the gateway logs it as `hook stderr`).
import { createInterface } from 'node:readline';

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const at = line.indexOf('"params":');
  const received = at < 0 ? null : line.slice(at + '"params":'.length, -1);
  if (msg.method !== 'hook.hello') process.stderr.write(`${received}\n`);
  const result = msg.method === 'hook.hello' ? { ok: true } : { action: 'continue' };
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`);
});
