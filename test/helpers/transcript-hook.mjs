#!/usr/bin/env node
// A stdio hook that plays the hook side of a PicoClaw transcript: for each request it receives it
// writes the replies the transcript's hook wrote for the next request of that method, with the
// ids rewritten the same way (the matching id, a string form of it, or a foreign number).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const lines = readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));
const queues = new Map();
let current;
for (const line of lines) {
  if (line.dir === 'host->hook' && 'id' in line.msg) {
    current = { id: line.msg.id, replies: [] };
    const q = queues.get(line.msg.method) ?? [];
    q.push(current);
    queues.set(line.msg.method, q);
  } else if (line.dir === 'host->hook') {
    current = undefined;
  } else if (line.dir === 'hook->host' && current) {
    current.replies.push(line.msg);
  }
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (text) => {
  const msg = JSON.parse(text);
  if (msg.id === undefined) return;
  const ex = queues.get(msg.method)?.shift();
  if (!ex) {
    process.stderr.write(`transcript-hook: no scripted reply for ${msg.method}\n`);
    return;
  }
  for (const reply of ex.replies) {
    const out = { ...reply };
    if (typeof reply.id === 'number') out.id = reply.id === ex.id ? msg.id : reply.id;
    else if (typeof reply.id === 'string') out.id = String(msg.id);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
});
rl.on('close', () => process.exit(0));
