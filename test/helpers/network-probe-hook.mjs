#!/usr/bin/env node
// A PicoClaw stdio hook that tries the network from inside its sandbox. A before_tool call for tool
// "probe" with arguments { connect?: [{host, port}], listen?: port, read?: path, exit?: true } answers respond
// with JSON: for each target "connected" (and the first line it read, if any) or the error code;
// for `listen`, "listening" (the socket stays open until the hook exits) or the error code; the
// text of `read`; with `exit` it exits instead of answering. Connections give up after 3 s ("timeout"): a dropped packet is a failure too.
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
const held = [];

function tryConnect({ host, port }) {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    let first = '';
    const done = (what) => {
      clearTimeout(timer);
      s.destroy();
      resolve(what);
    };
    const timer = setTimeout(() => done('timeout'), 3000);
    s.once('connect', () => {
      s.write('PING\r\n');
      s.once('data', (b) => {
        first = b.toString('utf8').split('\n')[0].trim();
        done(`connected: ${first}`);
      });
      s.once('end', () => done('connected'));
    });
    s.once('error', (err) => done(err.code ?? String(err)));
  });
}

function tryListen(port) {
  return new Promise((resolve) => {
    const srv = createServer((sock) => sock.end('+FROM-THE-HOOK\r\n'));
    srv.once('error', (err) => resolve(err.code ?? String(err)));
    srv.listen(port, '127.0.0.1', () => {
      held.push(srv);
      resolve('listening');
    });
  });
}

function tryRead(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    return err.code ?? String(err);
  }
}

async function probe(args) {
  if (args.exit) process.exit(3);
  const connected = [];
  for (const target of args.connect ?? []) connected.push(await tryConnect(target));
  return {
    connected,
    listen: args.listen ? await tryListen(args.listen) : undefined,
    read: args.read ? tryRead(args.read) : undefined,
  };
}

createInterface({ input: process.stdin }).on('line', async (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  if (msg.method === 'hook.hello') return reply({ ok: true });
  if (msg.method === 'hook.before_tool' && msg.params.tool === 'probe')
    return reply({
      action: 'respond',
      result: { for_llm: JSON.stringify(await probe(msg.params.arguments)) },
    });
  return reply({ action: 'continue' });
});
