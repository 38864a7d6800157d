/**
 * tools/call on a hook's MCP route, through a real gateway on 127.0.0.1 and the MCP SDK's own
 * client: each kind of hook answer, a failing backend within its deadline, and tools outside the
 * caller's list refused before the hook sees them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';
import { mcpClient } from './helpers.js';

let gw: TestGateway;
// Far above what an answering hook takes (ms): only a hook that never answers meets it.
const DEADLINE_MS = 10_000;
const rec = (extra: object = {}) => ({
  backend: { type: 'module', module: 'test/helpers/recording-hook.ts' },
  tools: ['lookup', 'other'],
  timeout_ms: DEADLINE_MS,
  ...extra,
});

beforeAll(async () => {
  gw = await startTestGateway(
    {
      tenants: {
        acme: tenantDoc({
          weather: {
            backend: { type: 'stdio', command: ['python3', 'examples/weather_hook.py'] },
            tools: ['get_weather'],
          },
          rec: rec(),
          closed: rec({ on_failure: 'closed' }),
          // A process that exits at once: the backend is down.
          down: {
            backend: { type: 'stdio', command: ['false'] },
            tools: ['lookup'],
            timeout_ms: DEADLINE_MS,
          },
          llmonly: rec({ modes: ['llm'] }),
        }),
      },
    },
    { waitForHooks: false },
  );
  // `down` never comes up; the Python hook must be up before its calls.
  await gw.ready(25_000, ['acme/weather']);
});

afterAll(() => gw?.close());

beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

function toolCalls() {
  return recorder().calls.filter((c) => c.method === 'hook.before_tool');
}

describe('tools/call', () => {
  it("returns a real stdio hook's respond as text, and its is_error as isError", async () => {
    const client = await mcpClient(gw, 'weather');
    expect(await client.callTool({ name: 'get_weather', arguments: { city: 'Berlin' } })).toEqual({
      content: [{ type: 'text', text: 'Berlin: 18 C, light rain' }],
    });
    expect(await client.callTool({ name: 'get_weather', arguments: { city: 'Atlantis' } })).toEqual({
      content: [{ type: 'text', text: 'No weather data for Atlantis' }],
      isError: true,
    });
    await client.close();
  });

  it('sends the call as hook.before_tool and maps media to the nearest content type', async () => {
    recorder().answer = () => ({
      action: 'respond',
      result: {
        for_llm: 'here',
        media: [
          'data:image/png;base64,iVBORw0KGgo=',
          'data:audio/wav;base64,UklGRg==',
          'media://abc/chart.svg',
        ],
      },
    });
    const client = await mcpClient(gw, 'rec');
    const result = await client.callTool({ name: 'lookup', arguments: { word: 'hook' } });
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'here' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'media://abc/chart.svg', name: 'chart.svg' },
      ],
    });
    expect(toolCalls()).toHaveLength(1);
    expect(toolCalls()[0].params).toMatchObject({
      meta: { Source: 'mcp', TracePath: 'turn.tool.before' },
      tool: 'lookup',
      arguments: { word: 'hook' },
    });
    await client.close();
  });

  it('answers deny_tool as an error result carrying the reason', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'not on Sundays' });
    const client = await mcpClient(gw, 'rec');
    expect(await client.callTool({ name: 'lookup', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Tool execution denied by hook "rec": not on Sundays' }],
      isError: true,
    });
    await client.close();
  });

  it('answers anything else (continue, a rewrite) as an error result: the hook did not answer', async () => {
    const client = await mcpClient(gw, 'rec');
    for (const answer of [
      { action: 'continue' },
      { action: 'modify', call: { tool: 'lookup', arguments: { x: 1 } } },
    ]) {
      recorder().answer = () => answer;
      const result = await client.callTool({ name: 'lookup', arguments: {} });
      expect(result.isError).toBe(true);
      expect((result.content as any)[0].text).toMatch(/^hook "rec" did not answer tool "lookup"/);
    }
    await client.close();
  });

  it('answers a hook that does not intercept tool calls as not answered, without calling it', async () => {
    const client = await mcpClient(gw, 'llmonly');
    const result = await client.callTool({ name: 'lookup', arguments: {} });
    expect(result.isError).toBe(true);
    expect(toolCalls()).toEqual([]);
    await client.close();
  });

  it("answers a hook that misses its deadline with an error result within the hook's timeout", async () => {
    recorder().answer = () => new Promise(() => {});
    await Promise.all(
      ['rec', 'closed'].map(async (hook) => {
        const client = await mcpClient(gw, hook);
        const started = performance.now();
        const result = await client.callTool({ name: 'lookup', arguments: {} });
        // Not before the deadline (a timer may fire a millisecond early by this clock).
        expect(performance.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
        expect(result).toEqual({
          content: [{ type: 'text', text: `hook "${hook}" failed to answer tool "lookup": timed out` }],
          isError: true,
        });
        await client.close();
      }),
    );
    // The hook's own deadline answered each, as logged.
    for (const hook of ['rec', 'closed']) {
      expect(gw.logs.lines).toContainEqual(
        expect.objectContaining({
          msg: 'hook failed; answered by its failure mode',
          hook,
          code: 'BACKEND_TIMEOUT',
          why: expect.stringMatching(new RegExp(`timed out after ${DEADLINE_MS} ms$`)),
        }),
      );
    }
  }, 60_000);

  it('answers for a backend that is down at once, as an error result', async () => {
    const client = await mcpClient(gw, 'down');
    const started = performance.now();
    const result = await client.callTool({ name: 'lookup', arguments: {} });
    // Not left to its deadline: "unavailable", not "timed out", and far sooner.
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS / 2);
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'hook "down" failed to answer tool "lookup": unavailable or invalid answer' },
      ],
      isError: true,
    });
    await client.close();
  });

  it("refuses a tool outside the hook's list before the hook sees it, and audits it", async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'should never be sent' } });
    const client = await mcpClient(gw, 'rec');
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('exec');
    await expect(client.callTool({ name: 'exec', arguments: { command: 'ls' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool: exec/),
    });
    expect(toolCalls()).toEqual([]);
    expect(gw.logs.audits()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          hook: 'rec',
          method: 'hook.before_tool',
          tool: 'exec',
          rule: 'tool_not_granted',
          answered: 'error:unknown_tool',
        }),
      ]),
    );
    expect(await gw.metricsText()).toMatch(
      /hookgate_calls_total\{tenant="acme",hook="rec",method="hook.before_tool",outcome="tool_not_granted"\} 1/,
    );
    await client.close();
  });

  it("refuses a hook tool the token's tools claim leaves out, and lists only the rest", async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'ok' } });
    const client = await mcpClient(gw, 'rec', { tools: ['other'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['other']);
    await expect(client.callTool({ name: 'lookup', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    expect(await client.callTool({ name: 'other', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'ok' }],
    });
    expect(toolCalls().map((c) => c.params.tool)).toEqual(['other']);
    await client.close();
  });
});
