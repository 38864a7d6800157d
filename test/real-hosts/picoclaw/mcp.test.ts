import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { type AgentRun, FakeModel, PicoClawHome, picoclawConfig, picoclawMissing } from './harness.js';

/**
 * The real PicoClaw loading a hook's tools from the hook's MCP route (`tools.mcp.servers`, type
 * http, the token in `headers`): the Python example hook (stdio backend) is listed with its own
 * definition, the model calls it as PicoClaw names it (`mcp_hookgate_get_weather`), and the tool
 * result the model receives is the hook's `respond`. A tool the token does not allow is not offered.
 */

const missing = picoclawMissing();

const why = missing ? ` (skipped: ${missing})` : '';
describe.skipIf(missing)(`real PicoClaw: a hook's tools over MCP${why}`, () => {
  let gw: TestGateway;
  let home: PicoClawHome;
  let run: AgentRun;
  const model = new FakeModel([{ name: 'mcp_hookgate_get_weather', arguments: { city: 'Berlin' } }]);

  beforeAll(async () => {
    await model.start();
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          weather: {
            backend: { type: 'stdio', command: ['python3', 'examples/weather_hook.py'] },
            modes: ['llm', 'tool'],
            // `forecast` is the hook's too, but the token below does not allow it. The prefixed
            // name is how PicoClaw shows get_weather (what docs/mcp.md once told users to list):
            // the route must not offer it, or the model sees mcp_hookgate_mcp_hookgate_get_weather.
            tools: ['get_weather', 'forecast', 'mcp_hookgate_get_weather'],
          },
        }),
      },
    });
    const token = await gw.token({ hooks: ['weather'], tools: ['get_weather', 'mcp_hookgate_get_weather'] });
    home = new PicoClawHome((dir) => ({
      ...picoclawConfig(dir, model.url, {}),
      tools: {
        mcp: {
          enabled: true,
          servers: {
            hookgate: {
              enabled: true,
              type: 'http',
              url: `${gw.url}/v1/tenants/acme/hooks/weather/mcp`,
              headers: { Authorization: `Bearer ${token}` },
            },
          },
        },
      },
    }));
    run = await home.run('What is the weather in Berlin?', 'hookgate-mcp');
  });

  afterAll(async () => {
    home?.remove();
    await gw?.close();
    await model.close();
  });

  it("offers the model the hook's tool under PicoClaw's MCP name, with the hook's definition, and nothing the token does not allow", () => {
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const offered = (
      (model.requests[0]?.tools ?? []) as Array<{ function?: { name?: string; description?: string } }>
    )
      .map((t) => t.function)
      .filter((f) => f?.name?.startsWith('mcp_hookgate_'));
    expect(offered.map((f) => f?.name)).toEqual(['mcp_hookgate_get_weather']);
    expect(offered[0]?.description).toContain('Current weather for a city');
  });

  it("the tool result the model receives is the hook's respond", () => {
    expect(model.result(0)).toContain('Berlin: 18 C, light rain');
    expect(run.stdout).toContain('all done');
  });
});
