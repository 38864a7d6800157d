import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hermesHooksYaml, hermesMcpServerName, hermesMcpYaml } from '../../../src/hosts/hermes/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { startFakeModel } from './fake-openai.js';
import { HERMES_BIN, HERMES_VERSION, HOOKGATE_COMMAND, hermesInstalled, oneShot } from './run-hermes.js';
import { WEATHER_DESCRIPTION, weatherTool } from '../weather-tool.js';

/**
 * The real Hermes Agent loading a hook's own tools from the hook's MCP route, with the
 * `mcp_servers:` block `hookgate setup hermes` prints (the token expanded by Hermes from
 * HOOKGATE_TOKEN), headless (`hermes -z`) against a fake model that calls the tool. Hermes's shell
 * hooks cannot answer a tool; over MCP the hook's `respond` is the result the model reads.
 */
const missing = `Hermes ${HERMES_VERSION} is not installed at ${HERMES_BIN} (bash scripts/hosts/install.sh)`;
const why = hermesInstalled ? '' : ` (skipped: ${missing})`;
if (!hermesInstalled && process.env.CI) {
  describe('Hermes host (MCP)', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

describe.skipIf(!hermesInstalled)(`Hermes ${HERMES_VERSION} with the hook's tools over MCP${why}`, () => {
  let gw: TestGateway;
  const marker = () => Math.random().toString(16).slice(2, 12);

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          weather: {
            ...rec,
            modes: ['tool'],
            ...weatherTool,
          },
        }),
      },
    });
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
  });

  const hook = () => gw.config.tenants.get('acme')!.hooks.get('weather')!;
  // Hermes 0.19.0 names MCP tools `mcp__<server>__<tool>` (its source comment says single underscores).
  const tool = () => `mcp__${hermesMcpServerName(hook())}__get_weather`;
  const run = async (city: string, token: string) => {
    const model = await startFakeModel({ name: tool(), arguments: { city } });
    try {
      const out = await oneShot({ modelUrl: model.url, hooksYaml: hermesMcpYaml(hook(), gw.url), token });
      return { ...out, toolResults: model.toolResults, offered: model.offered };
    } finally {
      await model.close();
    }
  };

  it('offers the tool as the hook describes it; the hook’s respond is the result the model reads', async () => {
    const m = marker();
    recorder().answer = (_method, params: any) => ({
      action: 'respond',
      result: { for_llm: `E2E-HERMES-MCP-${m}: sunny in ${params.arguments.city}` },
    });
    const r = await run('Lisbon', await gw.token());
    const diag = `offered: ${[...r.offered.keys()].join(', ')}\n${r.output.slice(-3000)}`;
    expect(r.offered.get(tool()), diag).toMatchObject({
      description: WEATHER_DESCRIPTION,
    });
    expect(r.toolResults, diag).toHaveLength(1);
    expect(r.toolResults[0]).toContain(`E2E-HERMES-MCP-${m}: sunny in Lisbon`);
    expect(recorder().calls.map((c) => [c.method, c.params.tool, c.params.arguments])).toEqual([
      ['hook.before_tool', 'get_weather', { city: 'Lisbon' }],
    ]);
    expect(recorder().calls[0].params.meta.Source).toBe('mcp');
  });

  it('with the shell hooks too: pre_tool_call names the tool by its bare name, so the hook’s respond is taken there', async () => {
    const m = marker();
    recorder().answer = (_method, params: any) => ({
      action: 'respond',
      result: { for_llm: `E2E-HERMES-BOTH-${m}: sunny in ${params.arguments.city}` },
    });
    const auditsBefore = gw.logs.audits().length;
    const model = await startFakeModel({ name: tool(), arguments: { city: 'Porto' } });
    try {
      const hooksYaml = `${hermesHooksYaml(hook(), gw.url, { command: HOOKGATE_COMMAND })}${hermesMcpYaml(hook(), gw.url)}`;
      const out = await oneShot({ modelUrl: model.url, hooksYaml, token: await gw.token() });
      const diag = out.output.slice(-3000);
      // Hermes fired pre_tool_call with mcp__hookgate_weather__get_weather; the hook saw get_weather.
      const shell = recorder().calls.filter((c) => c.params.meta?.Source === 'hermes');
      expect(
        shell.map((c) => [c.method, c.params.tool]),
        diag,
      ).toContainEqual(['hook.before_tool', 'get_weather']);
      expect(model.toolResults.join('\n'), diag).toContain(`E2E-HERMES-BOTH-${m}: sunny in Porto`);
      // Nothing refused: the respond was the hook's own tool's.
      expect(gw.logs.audits().slice(auditsBefore)).toEqual([]);
    } finally {
      await model.close();
    }
  });

  it('a token that may not use the tool: Hermes is not offered it, and the hook is never asked', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'must not be seen' } });
    const r = await run('Lisbon', await gw.token({ hooks: ['weather'], tools: ['other_tool'] }));
    expect(r.offered.has(tool()), [...r.offered.keys()].join(', ')).toBe(false);
    expect(r.toolResults.join('\n')).not.toContain('must not be seen');
    expect(recorder().calls.filter((c) => c.method === 'hook.before_tool')).toEqual([]);
  });
});
