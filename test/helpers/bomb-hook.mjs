#!/usr/bin/env node
// A PicoClaw stdio hook that tries to take more than its share, bounded so that it cannot hurt the
// machine even where nothing limits it. The tool name of a before_tool call says what to do; the
// answer is `respond` with what it managed:
//   ok                       "ok <pid>"
//   fork   {n}               start up to n sleeping processes; "forked <k>" (k < n: the kernel said no)
//   alloc  {mb}              hold mb MiB of touched heap, 16 MiB at a time; "allocated <mb>"
//   fill   {mb}              write mb MiB to its private /tmp, 16 MiB at a time; "filled <mb>"
//   spawn                    run one short child process; "spawned" (or why it could not)
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
const held = [];
const children = [];

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  const respond = (text) => reply({ action: 'respond', result: { for_llm: text } });
  if (msg.method === 'hook.hello') return reply({ ok: true });
  if (msg.method !== 'hook.before_tool') return reply({ action: 'continue' });
  const args = msg.params.arguments ?? {};
  switch (msg.params.tool) {
    case 'ok':
      return respond(`ok ${process.pid}`);
    case 'fork': {
      let k = 0;
      for (; k < Number(args.n); k++) {
        const child = spawn('/bin/sleep', ['600'], { stdio: 'ignore' });
        child.on('error', () => {});
        if (child.pid === undefined) break;
        children.push(child);
      }
      return respond(`forked ${k}`);
    }
    case 'alloc': {
      let mb = 0;
      for (; mb < Number(args.mb); mb += 16) held.push(Buffer.alloc(16 * 2 ** 20, 1));
      return respond(`allocated ${mb}`);
    }
    case 'fill': {
      let mb = 0;
      for (; mb < Number(args.mb); mb += 16) appendFileSync('/tmp/fill', Buffer.alloc(16 * 2 ** 20, 1));
      return respond(`filled ${mb}`);
    }
    case 'spawn':
      try {
        return respond(execFileSync('/bin/sh', ['-c', 'echo spawned'], { encoding: 'utf8' }).trim());
      } catch (err) {
        return respond(`spawn failed: ${err.code ?? err.message}`);
      }
    default:
      return reply({ action: 'continue' });
  }
});
