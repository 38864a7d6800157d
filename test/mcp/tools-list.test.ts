/**
 * tools/list on a hook's MCP route, through a real gateway on 127.0.0.1 and the MCP SDK's own
 * client: definitions from the config, from an SDK hook's declaration, from what a real stdio hook
 * (the Python example) injects in before_llm, and `{"type":"object"}` for a tool nothing describes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';
import { mcpClient } from './helpers.js';

const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string', description: 'City name' } },
  required: ['city'],
};

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        // A real PicoClaw stdio hook: it injects get_weather in before_llm and says nothing of `radar`.
        weather: {
          backend: { type: 'stdio', command: ['python3', 'examples/weather_hook.py'] },
          tools: ['get_weather', 'radar'],
        },
        declared: {
          backend: { type: 'module', module: 'test/mcp/hooks/declared-hook.ts' },
          tools: ['get_time', 'convert'],
          tool_definitions: {
            convert: {
              description: 'Convert an amount (from the config)',
              input_schema: {
                type: 'object',
                properties: { amount: { type: 'number' } },
                required: ['amount'],
              },
            },
          },
        },
        // Injects a granted tool, one it was not granted, and a bad definition.
        rec: {
          backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
          tools: ['lookup', 'odd'],
        },
        flaky: {
          backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
          tools: ['lookup'],
          timeout_ms: 300,
        },
        // A tool named as PicoClaw shows this server's get_weather: not one of its tools.
        prefixed: {
          backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
          modes: ['tool'],
          tools: ['get_weather', 'mcp_hookgate_get_weather', 'mcp__hookgate-x__lookup'],
        },
        toolonly: {
          backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
          modes: ['tool'],
          tools: ['lookup'],
        },
      }),
    },
  });
});

afterAll(() => gw?.close());

beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = (method, params) =>
    method === 'hook.before_llm'
      ? {
          action: 'modify',
          request: {
            ...params,
            tools: [
              ...params.tools,
              fn('lookup', 'Look a word up', { type: 'object', properties: { word: { type: 'string' } } }),
              fn('exec', 'Not granted', { type: 'object' }),
              fn('odd', 'Parameters that are not an object schema', { type: 'string' }),
            ],
          },
        }
      : { action: 'continue' };
});

function fn(name: string, description: string, parameters: object) {
  return { type: 'function', function: { name, description, parameters } };
}

describe('tools/list', () => {
  it("lists a stdio hook's injected definition, and {type: object} for a tool nothing describes", async () => {
    const client = await mcpClient(gw, 'weather');
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      { name: 'get_weather', description: 'Current weather for a city', inputSchema: WEATHER_SCHEMA },
      { name: 'radar', inputSchema: { type: 'object' } },
    ]);
    await client.close();
  });

  it("takes the config's definition first, then the SDK hook's declaration, without asking the hook", async () => {
    const client = await mcpClient(gw, 'declared');
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      {
        name: 'get_time',
        description: 'The time in a time zone',
        inputSchema: {
          type: 'object',
          properties: { zone: { type: 'string', description: 'IANA time zone' } },
          required: ['zone'],
        },
      },
      {
        name: 'convert',
        description: 'Convert an amount (from the config)',
        inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      },
    ]);
    // Every tool was described before the hook would have been asked: no before_llm call was made.
    expect(await gw.metricsText()).not.toMatch(
      /hookgate_calls_total\{[^}]*hook="declared",method="hook.before_llm"/,
    );
    await client.close();
  });

  it('asks before_llm once per backend start, through the policy: only granted, well-formed tools', async () => {
    const client = await mcpClient(gw, 'rec');
    const first = await client.listTools();
    const second = await client.listTools();
    expect(first).toEqual(second);
    expect(first.tools).toEqual([
      {
        name: 'lookup',
        description: 'Look a word up',
        inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
      },
      // Injected with a non-object schema: listed, with the loosest schema MCP allows.
      {
        name: 'odd',
        description: 'Parameters that are not an object schema',
        inputSchema: { type: 'object' },
      },
    ]);
    const asks = recorder().calls.filter((c) => c.method === 'hook.before_llm');
    expect(asks).toHaveLength(1);
    expect(await gw.metricsText()).toMatch(/hookgate_calls_total\{[^}]*hook="rec",method="hook.before_llm"/);
    // An empty conversation with no host tools; meta says where it came from.
    expect(asks[0].params).toMatchObject({
      meta: { Source: 'mcp', TracePath: 'turn.llm.request' },
      messages: [],
      tools: [],
    });
    // The ungranted injection went through the gateway's policy and was audited.
    expect(gw.logs.audits()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ hook: 'rec', rule: 'inject_tool_not_granted', tool: 'exec' }),
      ]),
    );
    await client.close();
  });

  it('does not ask a hook that does not intercept llm calls (it could not inject anything)', async () => {
    const client = await mcpClient(gw, 'toolonly');
    expect((await client.listTools()).tools).toEqual([{ name: 'lookup', inputSchema: { type: 'object' } }]);
    expect(recorder().calls).toEqual([]);
    await client.close();
  });

  it('shares one ask among concurrent lists, and asks again after a failed one (a failure is not kept)', async () => {
    const answer = recorder().answer;
    let fail = true;
    recorder().answer = async (method, params, ctx) => {
      if (method !== 'hook.before_llm') return answer(method, params, ctx);
      if (fail) throw new Error('not today');
      await new Promise((r) => setTimeout(r, 50));
      return answer(method, params, ctx);
    };
    const client = await mcpClient(gw, 'flaky');
    // Failed: listed without the injected definition.
    expect((await client.listTools()).tools).toEqual([{ name: 'lookup', inputSchema: { type: 'object' } }]);
    fail = false;
    const lists = await Promise.all([client.listTools(), client.listTools(), client.listTools()]);
    for (const l of lists)
      expect(l.tools[0]).toMatchObject({ name: 'lookup', description: 'Look a word up' });
    await client.listTools();
    expect(recorder().calls.filter((c) => c.method === 'hook.before_llm')).toHaveLength(2);
    await client.close();
  });

  it('offers no tool named as a host names an MCP tool (it would reach the model prefixed twice), nor runs one', async () => {
    const client = await mcpClient(gw, 'prefixed');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['get_weather']);
    const call = await client.callTool({ name: 'mcp_hookgate_get_weather', arguments: {} }).catch((e) => e);
    expect(String(call?.message ?? call)).toContain('Unknown tool: mcp_hookgate_get_weather');
    expect(recorder().calls).toEqual([]);
    await client.close();
  });

  it("narrows the list to the token's tools claim", async () => {
    const client = await mcpClient(gw, 'weather', { tools: ['radar', 'exec'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['radar']);
    await client.close();
  });
});
