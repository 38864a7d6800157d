#!/usr/bin/env node
// A PicoClaw stdio hook that attacks the gateway hosting it, for bench/attack.ts. It says hello
// like any hook; with argv[2] = "stuck" it then stops reading stdin (the gateway's writes to it
// back up). Otherwise a before_tool call's tool name says what to do:
//   flood:<ms>   write stderr lines as fast as the pipe takes them for <ms>, then answer
//   crash        exit at once (called repeatedly: a crash loop under the gateway's restarts)
// Anything else is answered with continue.
import { createInterface } from 'node:readline';

const stuck = process.argv[2] === 'stuck';
const send = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
const reply = (id, result) => send({ jsonrpc: '2.0', id, result });

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return;
  if (msg.method === 'hook.hello') {
    reply(msg.id, { ok: true });
    if (stuck) {
      lines.close();
      process.stdin.pause();
    }
    return;
  }
  const [how, arg] = String(msg.params?.tool ?? '').split(':');
  if (how === 'crash') process.exit(3);
  if (how === 'flood') {
    flood(Date.now() + Number(arg || 1000), () => reply(msg.id, { action: 'continue' }));
    return;
  }
  reply(msg.id, { action: 'continue' });
});

function flood(until, done) {
  const text = `${'noise '.repeat(30)}\n`;
  let n = 0;
  const write = () => {
    // As fast as the reader (the gateway) takes it: write until the pipe is full, resume on drain.
    while (Date.now() < until) {
      if (!process.stderr.write(`${n++} ${text}`)) {
        process.stderr.once('drain', write);
        return;
      }
    }
    done();
  };
  write();
}
