import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hostAfterTool,
  hostApprove,
  hostBeforeLlm,
  hostBeforeTool,
  type Reply,
} from '../../helpers/picoclaw-host.js';
import { type AgentRun, FakeModel, PicoClawHome, picoclawConfig, picoclawMissing } from './harness.js';

/**
 * The simulator the fast tests judge answers by (test/helpers/picoclaw-host.ts) held against the real
 * PicoClaw: a raw scripted process hook (no hookgate in between) gives PicoClaw one answer per tool
 * call, and what the model then receives as each tool result must be what the simulator predicts.
 */

const missing = picoclawMissing();

type Case = { before_tool?: unknown; approve_tool?: unknown; after_tool?: unknown };

/** One tool call per case: exec `echo case-<n>`, answered as the case says. */
const CASES: Case[] = [
  { before_tool: { action: 'respond', call: { hook_result: { for_llm: 'from call.hook_result' } } } },
  {
    before_tool: {
      action: 'respond',
      result: { for_llm: 'top-level result wins' },
      call: { hook_result: { for_llm: 'nested result loses' } },
    },
  },
  { before_tool: { Action: 'deny_tool', Reason: 'keys match case-insensitively' } },
  { before_tool: { action: 'DENY_TOOL' } },
  {
    before_tool: {
      action: 'continue',
      call: { tool: 'exec', arguments: { action: 'run', command: 'echo rewritten-4' } },
    },
  },
  { before_tool: { action: 'respond' } },
  { before_tool: { action: 7 } },
  { before_tool: null },
  { before_tool: { action: 'deny_tool' } },
  { approve_tool: {} },
  { approve_tool: { approved: 'yes' } },
  { approve_tool: { Approved: true, reason: 'fine' } },
  { approve_tool: { approved: false, reason: 'not this one' } },
  { after_tool: { action: 'modify', result: { result: { for_llm: 'after_tool replaced the result' } } } },
  { after_tool: { action: 'modify', result: { for_llm: 'a flat result is ignored' } } },
  {
    after_tool: { action: 'deny_tool', result: { result: { for_llm: 'an unsupported action is dropped' } } },
  },
];

const command = (i: number) => `echo case-${i}`;

/** What the model would read back, per the simulator's prediction for case i. */
function predicted(i: number): { exact?: string; contains?: string; startsWith?: string } {
  const c = CASES[i];
  const request = { tool: 'exec', arguments: { action: 'run', command: command(i) } };
  const tool = hostBeforeTool(request, 'before_tool' in c ? ({ result: c.before_tool } as Reply) : undefined);
  if (tool.respond) return { exact: tool.respond.for_llm };
  if (tool.denied) return { exact: tool.denied };
  const approval = hostApprove(
    'approve_tool' in c ? ({ result: c.approve_tool } as Reply) : { result: { approved: true } },
  );
  if (!approval.approved) return { startsWith: 'Tool execution denied by approval hook' };
  const ran = String(tool.args.command).replace(/^echo /, '');
  if (!('after_tool' in c)) return { contains: ran };
  const after = hostAfterTool({ tool: 'exec', result: { for_llm: `${ran}\n` } }, {
    result: c.after_tool,
  } as Reply);
  return { exact: after.result.for_llm };
}

describe.skipIf(missing)(
  `the PicoClaw simulator against the real binary${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let home: PicoClawHome;
    let run: AgentRun;
    /** Every line PicoClaw wrote to the hook, in order. */
    let received: any[] = [];
    const model = new FakeModel(
      CASES.map((_, i) => ({ name: 'exec', arguments: { action: 'run', command: command(i) } })),
    );

    beforeAll(async () => {
      await model.start();
      const script = {
        cases: Object.fromEntries(CASES.map((c, i) => [String(i), c])),
        before_llm: 'inject',
        drop: ['model', 'options'],
        after_llm_final: 'rewritten by after_llm',
      };
      home = new PicoClawHome((dir) =>
        picoclawConfig(dir, model.url, {
          scripted: {
            command: [process.execPath, join(import.meta.dirname, 'scripted-hook.mjs')],
            env: {
              HOOKGATE_TEST_SCRIPT: JSON.stringify(script),
              HOOKGATE_TEST_RECORD: join(dir, 'hook-input.jsonl'),
            },
            intercept: ['before_llm', 'before_tool', 'approve_tool'],
          },
        }),
      );
      run = await home.run('Run the commands.', 'hookgate-simulator');
      received = readFileSync(join(home.dir, 'hook-input.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    });

    afterAll(async () => {
      home?.remove();
      await model.close();
    });

    it('the turn ran every case', () => {
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(model.toolResults.size).toBe(CASES.length);
    });

    it.each(CASES.map((c, i) => [i, JSON.stringify(c)] as const))(
      'case %i %s: as the simulator predicts',
      (i) => {
        const got = model.result(i);
        const want = predicted(i);
        if (want.exact !== undefined) expect(got).toBe(want.exact);
        if (want.startsWith !== undefined) expect(got?.startsWith(want.startsWith), got).toBe(true);
        if (want.contains !== undefined) expect(got).toContain(want.contains);
      },
    );

    it('before_llm: an added tool is reverted; a request without model and options reaches the model so', () => {
      const params = received.find((m) => m.method === 'hook.before_llm').params;
      const injected = {
        type: 'function',
        function: { name: 'injected_tool', description: 'x', parameters: { type: 'object' } },
      };
      const { model: _model, options: _options, ...rest } = params;
      const effect = hostBeforeLlm(params, {
        result: { action: 'modify', request: { ...rest, tools: [...params.tools, injected] } },
      });
      const sent = model.requests[0];
      const names = (sent.tools ?? []).map((t: any) => t.function?.name);
      expect(names).toEqual(effect.tools.map((t: any) => t.function.name));
      expect(names).toContain('exec');
      expect(names).not.toContain('injected_tool');
      // The simulator: a missing model is "" and missing options are dropped (no max_tokens).
      expect(effect.model).toBe('');
      expect(effect.options).toBeNull();
      expect(sent.model).toBe('');
      expect(sent.max_tokens).toBeUndefined();
    });

    it("after_llm's nested response.response replaces the final answer", () => {
      expect(run.stdout).toContain('rewritten by after_llm');
      expect(run.stdout).not.toContain('all done');
    });

    it('the wire is as the protocol notes say: hello first as id 1, ids counting up, PascalCase meta', () => {
      expect(received[0]).toEqual({
        jsonrpc: '2.0',
        id: 1,
        method: 'hook.hello',
        params: { name: 'scripted', version: 1, modes: ['llm', 'tool', 'approve'] },
      });
      expect(received.map((m) => m.id)).toEqual(received.map((_, i) => i + 1));
      const beforeTool = received.find((m) => m.method === 'hook.before_tool').params;
      expect(Object.keys(beforeTool)).toEqual(['meta', 'context', 'tool', 'arguments']);
      expect(Object.keys(beforeTool.meta)).toEqual([
        'AgentID',
        'TurnID',
        'ParentTurnID',
        'SessionKey',
        'Iteration',
        'TracePath',
        'Source',
      ]);
      expect(beforeTool.meta).toMatchObject({
        TracePath: 'turn.tool.before',
        Source: 'runTurn',
        ParentTurnID: '',
      });
    });

    it('after_llm shows openai-compatible tool calls as ids only, and after_tool comes without being listed', () => {
      const afterLlm = received.find((m) => m.method === 'hook.after_llm').params;
      expect(afterLlm.response.tool_calls[0]).toEqual({ id: 'call_1' });
      // intercept named before_tool only; the tool mode sends after_tool too, for tools that ran.
      expect(received.filter((m) => m.method === 'hook.after_tool').length).toBeGreaterThan(0);
      expect(received.some((m) => m.method === 'hook.runtime_event')).toBe(false);
    });
  },
);
