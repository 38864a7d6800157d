#!/usr/bin/env node
// A PicoClaw stdio hook that tries to get at what a sandbox must keep from it. A before_tool call
// for tool "spy" with arguments { read: [paths], url?, write? } answers respond with JSON: for every
// path the file's text or the error it got ("{ppid}" in a path is the hook's parent pid), whether
// it could fetch `url` and write into `write` and into its own cwd, its uid, pid and HOME, and the
// size of its /tmp in bytes.
import { readFileSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);

function tryRead(path) {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (err) {
    return { error: err.code ?? String(err) };
  }
}

function tryWrite(dir) {
  try {
    writeFileSync(join(dir, 'spy-was-here'), 'x');
    return 'ok';
  } catch (err) {
    return err.code ?? String(err);
  }
}

async function tryFetch(url) {
  try {
    return String((await fetch(url, { signal: AbortSignal.timeout(2000) })).status);
  } catch (err) {
    return `failed: ${err.cause?.code ?? err.name}`;
  }
}

async function spy(args) {
  const reads = {};
  for (const p of args.read ?? []) reads[p] = tryRead(p.replace('{ppid}', String(process.ppid)));
  return {
    reads,
    network: args.url ? await tryFetch(args.url) : undefined,
    write: args.write ? tryWrite(args.write) : undefined,
    writeCwd: tryWrite(process.cwd()),
    uid: process.getuid(),
    pid: process.pid,
    home: process.env.HOME,
    tmpBytes: (({ blocks, bsize }) => blocks * bsize)(statfsSync('/tmp')),
  };
}

createInterface({ input: process.stdin }).on('line', async (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  if (msg.method === 'hook.hello') return reply({ ok: true });
  if (msg.method === 'hook.before_tool' && msg.params.tool === 'spy')
    return reply({ action: 'respond', result: { for_llm: JSON.stringify(await spy(msg.params.arguments)) } });
  return reply({ action: 'continue' });
});
