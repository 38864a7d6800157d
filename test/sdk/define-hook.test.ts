import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import weather from '../../examples/weather-sdk.js';
import type { HookCallContext } from '../../src/protocol/hook-object.js';
import { defineHook, defineTool, dispatchToHook, toToolResult } from '../../src/sdk/index.js';

const ctx: HookCallContext = { method: 'test', tenant: 't', hook: 'h', signal: new AbortController().signal };

// hook.before_llm params exactly as in fixture 06-before-llm-tool-injection-reverted.
const META = {
  AgentID: 'main',
  TurnID: 'main-turn-7',
  ParentTurnID: '',
  SessionKey: 'sk_v1_d6440983c454c2e5999fdb66bbe9cf5f89a8f5847d6c9578ef14afd26eee122c',
  Iteration: 1,
  TracePath: 'turn.llm.request',
  Source: 'runTurn',
};
const CONTEXT = {
  inbound: {
    channel: 'telegram',
    chat_id: '123456789',
    chat_type: 'direct',
    sender_id: '987654321',
    message_id: '4711',
  },
  route: {
    AgentID: 'main',
    Channel: 'telegram',
    AccountID: 'default',
    SessionPolicy: { Dimensions: ['chat'], IdentityLinks: null },
    MatchedBy: 'default',
  },
  scope: {
    version: 1,
    agent_id: 'main',
    channel: 'telegram',
    account: 'default',
    dimensions: ['chat'],
    values: { chat: 'direct:123456789' },
  },
};
const EXEC_TOOL = {
  type: 'function',
  function: {
    name: 'exec',
    description: 'Run a shell command in the workspace',
    parameters: {
      properties: { command: { description: 'Command to run', type: 'string' } },
      required: ['command'],
      type: 'object',
    },
  },
};
const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      properties: { city: { description: 'City name', type: 'string' } },
      required: ['city'],
      type: 'object',
    },
  },
};
function beforeLlmParams() {
  return {
    meta: META,
    context: CONTEXT,
    model: 'gpt-4o-mini',
    messages: [
      {
        role: 'system',
        content: 'You are PicoClaw, a helpful assistant.',
        system_parts: [
          {
            type: 'text',
            text: 'You are PicoClaw, a helpful assistant.',
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
      { role: 'user', content: 'What is the weather in Berlin?' },
    ],
    tools: [EXEC_TOOL],
    options: { max_tokens: 8192, prompt_cache_key: 'main', temperature: 0.7 },
  };
}

const weatherTool = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string().describe('City name') }),
  handler: ({ city }) => `${city}: 18 C, light rain`,
});

describe('defineHook: before_llm tool injection', () => {
  it('answers modify with the whole request echoed and the tool appended (fixture 06)', async () => {
    const hook = defineHook({ name: 'weather', tools: [weatherTool] });
    const params = beforeLlmParams();
    const result: any = await hook.beforeLlm!(params, ctx);
    expect(result).toStrictEqual({
      action: 'modify',
      request: { ...beforeLlmParams(), tools: [EXEC_TOOL, WEATHER_TOOL] },
    });
    // Everything is echoed, in the host's key order, and nothing else changes.
    expect(Object.keys(result.request)).toEqual(['meta', 'context', 'model', 'messages', 'tools', 'options']);
    expect(JSON.stringify(result.request.tools[1].function.parameters)).not.toContain('$schema');
    expect(params.tools).toEqual([EXEC_TOOL]); // the input is not mutated
  });

  it('injects into the request a user beforeLlm returned', async () => {
    const hook = defineHook({
      name: 'w',
      tools: [weatherTool],
      beforeLlm: (p) => ({ action: 'modify', request: { ...p, model: 'gpt-4o' } }),
    });
    const result: any = await hook.beforeLlm!(beforeLlmParams(), ctx);
    expect(result.request.model).toBe('gpt-4o');
    expect(result.request.tools).toEqual([EXEC_TOOL, WEATHER_TOOL]);
    expect(result.request.options).toEqual(beforeLlmParams().options);
  });

  it('leaves aborts, tool-less calls, already present tools and injectTools:false alone', async () => {
    const aborting = defineHook({
      name: 'w',
      tools: [weatherTool],
      beforeLlm: () => ({ action: 'abort_turn' }),
    });
    expect(await aborting.beforeLlm!(beforeLlmParams(), ctx)).toEqual({ action: 'abort_turn' });

    const hook = defineHook({ name: 'w', tools: [weatherTool] });
    const { tools: _none, ...btw } = beforeLlmParams();
    expect(await hook.beforeLlm!(btw, ctx)).toEqual({ action: 'continue' });
    const present = { ...beforeLlmParams(), tools: [EXEC_TOOL, WEATHER_TOOL] };
    expect(await hook.beforeLlm!(present, ctx)).toEqual({ action: 'continue' });

    const quiet = defineHook({ name: 'w', tools: [weatherTool], injectTools: false });
    expect(await quiet.beforeLlm!(beforeLlmParams(), ctx)).toEqual({ action: 'continue' });
  });

  it('describes fields with defaults as optional (the LLM supplies the input)', async () => {
    const hook = defineHook({
      name: 'w',
      tools: [
        {
          name: 'convert',
          description: 'Convert units',
          parameters: z.object({ value: z.number(), unit: z.enum(['c', 'f']).default('c') }),
          handler: ({ value, unit }) => `${value} ${unit}`,
        },
      ],
    });
    const result: any = await hook.beforeLlm!(beforeLlmParams(), ctx);
    expect(result.request.tools[1].function.parameters.required).toEqual(['value']);
  });
});

describe('defineHook: declared tools', () => {
  it('exposes the definitions it injects as `tools`, injected or not (a gateway lists them over MCP)', () => {
    expect(defineHook({ name: 'w', tools: [weatherTool] }).tools).toEqual([WEATHER_TOOL]);
    expect(defineHook({ name: 'w', tools: [weatherTool], injectTools: false }).tools).toEqual([WEATHER_TOOL]);
    expect(defineHook({ name: 'w' }).tools).toEqual([]);
    expect(Object.isFrozen(defineHook({ name: 'w', tools: [weatherTool] }).tools)).toBe(true);
  });
});

describe('defineHook: before_tool respond', () => {
  const call = (tool: string, args: unknown) => ({ meta: META, context: CONTEXT, tool, arguments: args });

  it('answers a declared tool with respond in the shape of fixture 10', async () => {
    expect(await weather.beforeTool!(call('get_weather', { city: 'Berlin' }), ctx)).toStrictEqual({
      action: 'respond',
      result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
    });
  });

  it('turns a thrown handler into an is_error result', async () => {
    const hook = defineHook({
      name: 'w',
      tools: [
        {
          name: 'flaky',
          description: 'fails',
          parameters: z.object({}),
          handler: async () => {
            throw new Error('upstream down');
          },
        },
      ],
    });
    expect(await hook.beforeTool!(call('flaky', {}), ctx)).toStrictEqual({
      action: 'respond',
      result: { for_llm: 'flaky failed: upstream down', silent: false, is_error: true },
    });
  });

  it('answers a synchronous handler synchronously and an async one with a promise, the same answer', async () => {
    const answer = (text: string) => ({
      action: 'respond',
      result: { for_llm: text, silent: false, is_error: false },
    });
    const hook = defineHook({
      name: 'w',
      tools: [
        { name: 'now', description: 'sync', parameters: z.object({}), handler: () => 'at once' },
        { name: 'later', description: 'async', parameters: z.object({}), handler: async () => 'later' },
        {
          name: 'throws',
          description: 'sync throw',
          parameters: z.object({}),
          handler: () => {
            throw new Error('no');
          },
        },
      ],
      afterTool: () => undefined,
    });
    // A gateway hosting the hook in process answers a plain value without a promise or a timer.
    expect(hook.beforeTool!(call('now', {}), ctx)).toStrictEqual(answer('at once'));
    expect(hook.beforeTool!(call('throws', {}), ctx)).toStrictEqual({
      action: 'respond',
      result: { for_llm: 'throws failed: no', silent: false, is_error: true },
    });
    expect(hook.afterTool!({}, ctx)).toStrictEqual({ action: 'continue' });
    expect(hook.afterLlm!({}, ctx)).toStrictEqual({ action: 'continue' });
    const later = hook.beforeTool!(call('later', {}), ctx);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toStrictEqual(answer('later'));
  });

  it('gives a tool handler the call context with its signal read only when the handler reads it', async () => {
    let reads = 0;
    const signal = new AbortController().signal;
    const counting = {
      method: 'hook.before_tool',
      tenant: 't',
      hook: 'h',
      get signal() {
        reads++;
        return signal;
      },
    };
    let seen: Record<string, unknown> | undefined;
    const hook = defineHook({
      name: 'w',
      tools: [
        {
          name: 'look',
          description: 'reads its context',
          parameters: z.object({}),
          handler: (_args, toolCtx) => {
            expect(reads).toBe(0);
            seen = { ...toolCtx };
            return 'ok';
          },
        },
      ],
    });
    await hook.beforeTool!(call('look', {}), counting);
    expect(reads).toBe(1);
    expect(Object.keys(seen ?? {}).sort()).toEqual(['call', 'hook', 'method', 'signal', 'tenant']);
    expect(seen?.signal).toBe(signal);
    expect((seen?.call as { tool?: string } | undefined)?.tool).toBe('look');
  });

  it('validates arguments before calling the handler', async () => {
    let called = false;
    const hook = defineHook({
      name: 'w',
      tools: [
        {
          ...weatherTool,
          handler: () => {
            called = true;
            return 'x';
          },
        },
      ],
    });
    const result: any = await hook.beforeTool!(call('get_weather', { city: 42 }), ctx);
    expect(result.action).toBe('respond');
    expect(result.result.is_error).toBe(true);
    expect(result.result.for_llm).toMatch(/invalid arguments for get_weather/);
    expect(result.result.for_llm).toMatch(/city/);
    expect(called).toBe(false);
    const missing: any = await hook.beforeTool!(call('get_weather', undefined), ctx);
    expect(missing.result.is_error).toBe(true);
  });

  it('passes the call to the handler and keeps a partial ToolResult in PicoClaw order', async () => {
    let seen: any;
    const hook = defineHook({
      name: 'w',
      tools: [
        {
          name: 'snap',
          description: 'screenshot',
          parameters: z.object({}),
          handler: (_args, c) => {
            seen = c;
            return { for_llm: 'done', media: ['media://1'], response_handled: true };
          },
        },
      ],
    });
    const result: any = await hook.beforeTool!(call('snap', {}), ctx);
    expect(JSON.stringify(result.result)).toBe(
      '{"for_llm":"done","silent":false,"is_error":false,"media":["media://1"],"response_handled":true}',
    );
    expect(seen.call.meta).toEqual(META);
    expect(seen.tenant).toBe('t');
  });

  it('falls through to the user beforeTool, or continue, for other tools', async () => {
    expect(await weather.beforeTool!(call('exec', { command: 'ls' }), ctx)).toEqual({ action: 'continue' });
    const hook = defineHook({
      name: 'w',
      tools: [weatherTool],
      beforeTool: (p) => ({ action: 'deny_tool', reason: `no ${p.tool}` }),
    });
    expect(await hook.beforeTool!(call('exec', {}), ctx)).toEqual({ action: 'deny_tool', reason: 'no exec' });
  });
});

describe('defineHook: the other methods', () => {
  it('answers continue for methods not given and leaves approveTool undefined', async () => {
    const hook = defineHook({ name: 'w' });
    expect(await hook.beforeLlm!(beforeLlmParams(), ctx)).toEqual({ action: 'continue' });
    expect(await hook.afterLlm!({}, ctx)).toEqual({ action: 'continue' });
    expect(await hook.beforeTool!({ tool: 'x' }, ctx)).toEqual({ action: 'continue' });
    expect(await hook.afterTool!({}, ctx)).toEqual({ action: 'continue' });
    expect(hook.approveTool).toBeUndefined();
    expect('approveTool' in hook).toBe(false);
    expect(hook.name).toBe('w');
  });

  it('makes approvals explicit', async () => {
    const yes = defineHook({ name: 'w', approveTool: () => true });
    expect(await yes.approveTool!({}, ctx)).toEqual({ approved: true });
    const silent = defineHook({ name: 'w', approveTool: () => undefined });
    expect(await silent.approveTool!({}, ctx)).toMatchObject({ approved: false });
    const full = defineHook({
      name: 'w',
      approveTool: (p) => ({ approved: false, reason: `not ${p.tool}` }),
    });
    expect(await full.approveTool!({ tool: 'exec' }, ctx)).toEqual({ approved: false, reason: 'not exec' });
  });

  it('fails fast on bad definitions', () => {
    expect(() => defineHook({ name: '' })).toThrow(/name/);
    expect(() => defineHook({ name: 'w', tools: [weatherTool, weatherTool] })).toThrow(/twice/);
    expect(() => defineHook({ name: 'w', tools: [{ ...weatherTool, name: 'bad name' }] })).toThrow(
      /must match/,
    );
    expect(() =>
      defineHook({ name: 'w', tools: [{ ...weatherTool, parameters: z.string() as any }] }),
    ).toThrow(/object/);
  });

  it('infers handler argument types from the zod schema', () => {
    defineHook({
      name: 'w',
      tools: [
        {
          name: 'a',
          description: '',
          parameters: z.object({ n: z.number() }),
          handler: (args) => {
            expectTypeOf(args).toEqualTypeOf<{ n: number }>();
            return '';
          },
        },
      ],
    });
  });

  it('normalises handler returns', () => {
    expect(toToolResult('x')).toStrictEqual({ for_llm: 'x', silent: false, is_error: false });
    expect(toToolResult(undefined)).toStrictEqual({ for_llm: '', silent: false, is_error: false });
    expect(toToolResult({ for_llm: 'y', silent: true, for_user: 'u' })).toStrictEqual({
      for_llm: 'y',
      for_user: 'u',
      silent: true,
      is_error: false,
    });
  });
});

describe('dispatchToHook', () => {
  it('answers hello, runs methods and maps failures to JSON-RPC codes', async () => {
    const hook = defineHook({
      name: 'w',
      afterTool: () => {
        throw new Error('bad');
      },
    });
    expect(await dispatchToHook(hook, 'hook.hello', { name: 'cfg' }, ctx)).toEqual({
      ok: true,
      result: { ok: true, name: 'w' },
    });
    expect(await dispatchToHook(hook, 'hook.before_tool', { tool: 'x' }, ctx)).toEqual({
      ok: true,
      result: { action: 'continue' },
    });
    expect(await dispatchToHook(hook, 'hook.after_tool', {}, ctx)).toEqual({
      ok: false,
      code: -32603,
      message: 'bad',
    });
    expect(await dispatchToHook(hook, 'hook.approve_tool', {}, ctx)).toMatchObject({
      ok: false,
      code: -32601,
    });
    expect(await dispatchToHook(hook, 'hook.nope', {}, ctx)).toMatchObject({ ok: false, code: -32601 });
    expect(await dispatchToHook(hook, 'toString', {}, ctx)).toMatchObject({ ok: false, code: -32601 });
    expect(await dispatchToHook(hook, 'hook.runtime_event', {}, ctx)).toEqual({ ok: true, result: null });
    expect(await dispatchToHook({ beforeTool: () => undefined }, 'hook.before_tool', {}, ctx)).toEqual({
      ok: true,
      result: null,
    });
  });
});
