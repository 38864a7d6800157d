// A PicoClaw stdio hook for the MCP tests: in before_llm it injects `whoami`, described with a
// random id of this run (not the pid: in a sandbox every hook is pid 2), so a test can tell a
// restarted hook from the one before.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';

const run = randomUUID();

const tool = {
  type: 'function',
  function: { name: 'whoami', description: `run ${run}`, parameters: { type: 'object' } },
};

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  let result = { action: 'continue' };
  if (msg.method === 'hook.hello') result = { ok: true };
  if (msg.method === 'hook.before_llm') {
    result = { action: 'modify', request: { ...msg.params, tools: [...(msg.params.tools ?? []), tool] } };
  }
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`);
});
