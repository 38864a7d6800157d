import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paramsFrom } from '../policy/helpers.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

const rec = {
  backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
  tools: ['get_weather'],
  timeout_ms: 200,
  approval_timeout_ms: 200,
};
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        open: { ...rec, modes: ['llm', 'tool', 'approve'] },
        closed: { ...rec, modes: ['llm', 'tool'], on_failure: 'closed' },
      }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
});

const toolCall = () => paramsFrom('10-before-tool-respond-plugin-tool.jsonl', 'hook.before_tool');

describe('module backend failures', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('boom');
      },
    ],
    ['never answers', () => new Promise(() => {})],
    ['answers a string', () => 'continue'],
    ['answers a wrongly typed action', () => ({ action: 7 })],
  ])('a hook that %s yields the failure answer within timeout_ms', async (n, answer) => {
    recorder().answer = answer as () => unknown;
    const timeouts = () =>
      gw.logs.lines.filter((l) => l.code === 'BACKEND_TIMEOUT' && / after 200 ms$/.test(l.why)).length;
    const timedOutBefore = timeouts();
    const started = Date.now();
    expect((await gw.call('open', 'hook.before_tool', toolCall())).result).toEqual({ action: 'continue' });
    expect((await gw.call('closed', 'hook.before_tool', toolCall())).result).toMatchObject({
      action: 'deny_tool',
    });
    expect(
      (await gw.call('closed', 'hook.after_llm', paramsFrom('07-after-llm-modify.jsonl', 'hook.after_llm')))
        .result,
    ).toMatchObject({
      action: 'abort_turn',
    });
    expect(
      (await gw.call('open', 'hook.approve_tool', paramsFrom('13-approve-true.jsonl', 'hook.approve_tool')))
        .result,
    ).toMatchObject({
      approved: false,
    });
    // A silent hook is cut off by its own 200 ms deadline (not the 4 s and 55 s defaults), each of
    // the four calls; any other failure is answered without waiting for one. The wall-clock bound
    // is far above the measured time, and below what the defaults would take.
    expect(timeouts() - timedOutBefore).toBe(n === 'never answers' ? 4 : 0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('gives the hook its own copy: editing params in place cannot smuggle a tool past the check', async () => {
    recorder().answer = (_m, params) => {
      params.tools.push({
        type: 'function',
        function: { name: 'shell', description: 'x', parameters: null },
      });
      return { action: 'modify', request: params };
    };
    const body = await gw.call(
      'open',
      'hook.before_llm',
      paramsFrom('04-before-llm-continue.jsonl', 'hook.before_llm'),
    );
    expect(body.result).toEqual({ action: 'continue' });
    expect(gw.logs.audits().some((a) => a.rule === 'inject_tool_not_granted' && a.tool === 'shell')).toBe(
      true,
    );
  });

  it("aborts the hook's signal at the deadline, even when the hook first looks at it afterwards", async () => {
    let seen: boolean | undefined;
    recorder().answer = async (_m, _p, ctx) => {
      await new Promise((r) => setTimeout(r, 300));
      seen = ctx.signal.aborted;
      return { action: 'continue' };
    };
    await gw.call('open', 'hook.before_tool', toolCall());
    await expect.poll(() => seen).toBe(true);
  });
});

describe('an answer too deep to check', () => {
  it('yields the failure answer (approvals stay explicit), not an error', async () => {
    let deep: any = {};
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    recorder().answer = (m) =>
      m === 'hook.approve_tool'
        ? { approved: true, reason: deep }
        : { action: 'modify', call: { tool: 'x', arguments: deep } };
    const approval = await gw.call(
      'open',
      'hook.approve_tool',
      paramsFrom('13-approve-true.jsonl', 'hook.approve_tool'),
    );
    expect(approval.result).toMatchObject({ approved: false });
    // get_weather is the hook's own tool, so new arguments pass the policy; these cannot be sent.
    const tool = await gw.call('closed', 'hook.before_tool', toolCall());
    expect(tool.result).toMatchObject({ action: 'deny_tool' });
    expect(gw.logs.lines.some((l) => l.msg === 'answer could not be serialised')).toBe(true);
  });
});

describe('a module whose hook object has no hook function', () => {
  it('refuses to start, naming the backend and what the object has (a misspelt guard would let everything through)', async () => {
    const started = startTestGateway({
      tenants: {
        acme: tenantDoc({
          guard: { backend: { type: 'module', module: 'test/helpers/misspelt-hook.mjs' }, modes: ['tool'] },
        }),
      },
    });
    await expect(started).rejects.toThrow(/tenants\.acme\.hooks\.guard\.backend\.module/);
    await expect(started).rejects.toThrow(/none of the hook functions .*; it has before_tool/);
  });
});
