#!/usr/bin/env node
// A raw PicoClaw process hook (no hookgate in between) that answers from a script, so a test can
// hold the real PicoClaw's effect against the simulator's prediction for the very same answer.
// HOOKGATE_TEST_SCRIPT (JSON): { cases: { "<n>": { before_tool?, approve_tool?, after_tool?: <result> } },
// before_llm?: "inject" (echo the request with one more tool, and without `drop` keys), drop?: [keys],
// after_llm_final?: <content> }.
// A tool call belongs to case n when its `command` argument is `echo case-<n>`. Every line PicoClaw
// sends is appended to the file named by HOOKGATE_TEST_RECORD, when set.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const script = JSON.parse(process.env.HOOKGATE_TEST_SCRIPT ?? '{}');
const caseOf = (params) => /^echo case-(\d+)$/.exec(String(params?.arguments?.command ?? ''))?.[1];
const has = (o, k) => o !== undefined && Object.hasOwn(o, k);

function answer(method, params) {
  const c = script.cases?.[caseOf(params)];
  switch (method) {
    case 'hook.hello':
      return {};
    case 'hook.before_tool':
      return has(c, 'before_tool') ? c.before_tool : { action: 'continue' };
    case 'hook.approve_tool':
      return has(c, 'approve_tool') ? c.approve_tool : { approved: true };
    case 'hook.after_tool':
      return has(c, 'after_tool') ? c.after_tool : { action: 'continue' };
    case 'hook.before_llm':
      if (script.before_llm === 'inject') {
        const tool = {
          type: 'function',
          function: { name: 'injected_tool', description: 'x', parameters: { type: 'object' } },
        };
        const request = { ...params, tools: [...(params.tools ?? []), tool] };
        for (const key of script.drop ?? []) delete request[key];
        return { action: 'modify', request };
      }
      return { action: 'continue' };
    case 'hook.after_llm': {
      const response = params.response ?? {};
      if (script.after_llm_final && !(response.tool_calls?.length > 0)) {
        return {
          action: 'modify',
          response: { ...params, response: { ...response, content: script.after_llm_final } },
        };
      }
      return { action: 'continue' };
    }
    default:
      return { action: 'continue' };
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (process.env.HOOKGATE_TEST_RECORD) appendFileSync(process.env.HOOKGATE_TEST_RECORD, `${line}\n`);
  const msg = JSON.parse(line);
  if (typeof msg.id !== 'number') return; // notifications are never answered
  process.stdout.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: answer(msg.method, msg.params) })}\n`,
  );
});
