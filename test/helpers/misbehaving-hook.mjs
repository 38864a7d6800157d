#!/usr/bin/env node
// A PicoClaw stdio hook that misbehaves on request: the tool name of a before_tool call says how.
//   ok | slow:<ms> | hang | crash | garbage | big:<bytes> | stderr:<text> | respond | nojsonrpc
//   deaf (answers, then never reads stdin again) | flood:<lines> (that many stderr lines, then one of 10 KB)
//   (nojsonrpc: the reply leaves out "jsonrpc", which PicoClaw accepts)
// Every other method answers continue (approvals: approved true, except for the tools `repeated`
// and `proto`, whose answers only a Go-faithful reader takes as the denial they are).
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
process.stderr.write(`misbehaving-hook started pid=${process.pid}\n`);

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  if (msg.method === 'hook.hello') return reply({ ok: true, pid: process.pid });
  if (msg.method === 'hook.approve_tool') {
    if (msg.params.tool === 'crash') process.exit(3);
    if (msg.params.tool === 'hang') return;
    // Go reads both as a denial: the last "approved" wins; "__PROTO__" is no field at all.
    const raw = {
      repeated: '{"approved":false,"Approved":true,"approved":false}',
      proto: '{"__PROTO__":{"approved":true}}',
    }[msg.params.tool];
    if (raw) return process.stdout.write(`{"jsonrpc":"2.0","id":${msg.id},"result":${raw}}\n`);
    return reply({ approved: true });
  }
  if (msg.method !== 'hook.before_tool') return reply({ action: 'continue' });
  const [how, arg] = String(msg.params.tool).split(':');
  switch (how) {
    case 'slow':
      return setTimeout(() => reply({ action: 'respond', result: { for_llm: `slept ${arg}` } }), Number(arg));
    case 'hang':
      return;
    case 'crash':
      return process.exit(3);
    case 'garbage':
      process.stdout.write('this is not json\n');
      return reply('a string is not a result');
    case 'big':
      return reply({ action: 'respond', result: { for_llm: 'x'.repeat(Number(arg)) } });
    case 'stderr':
      process.stderr.write(`${arg}\n`);
      return reply({ action: 'continue' });
    case 'deaf':
      reply({ action: 'continue' });
      input.pause();
      process.stdin.pause();
      setInterval(() => {}, 60_000); // a paused stdin no longer keeps the process alive
      return;
    case 'flood':
      process.stderr.write(
        `${Array.from({ length: Number(arg) }, (_, i) => `flood line ${i}`).join('\n')}\n`,
      );
      process.stderr.write(`${'y'.repeat(10_000)}\n`);
      return reply({ action: 'continue' });
    case 'nojsonrpc':
      return send({ id: msg.id, result: { action: 'respond', result: { for_llm: 'no jsonrpc' } } });
    case 'pid':
      return reply({ action: 'respond', result: { for_llm: String(process.pid) } });
    default:
      return reply({ action: 'respond', result: { for_llm: `ok ${msg.params.tool}` } });
  }
});
