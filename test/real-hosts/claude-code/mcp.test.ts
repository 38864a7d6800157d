import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { CLAUDE_CODE_VERSION, type ClaudeRun, claudeInstalled, cleanup, runClaude } from './run-claude.js';

/**
 * The real Claude Code loading a hook's tools from the hook's MCP route (`--mcp-config` with
 * `type: "http"` and the token in an Authorization header): the Python example hook (stdio backend)
 * is offered as `mcp__hookgate-weather__get_weather`, the model calls it, and the tool result it
 * receives is the hook's `respond`. A tool the token does not allow is not offered. It speaks the
 * 2026-07-28 revision with the route: its `server/discover` probe is answered, so it never falls
 * back to a 2025 `initialize`, and no MCP request of the run is refused. (claude-code.test.ts fails
 * under CI when the host is missing; this file only skips.)
 */
const why = claudeInstalled ? '' : ` (skipped: Claude Code is not installed; bash scripts/hosts/install.sh)`;
describe.skipIf(!claudeInstalled)(`Claude Code ${CLAUDE_CODE_VERSION}: a hook's tools over MCP${why}`, () => {
  let gw: TestGateway;
  let run: ClaudeRun;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          weather: {
            backend: { type: 'stdio', command: ['python3', 'examples/weather_hook.py'] },
            modes: ['llm', 'tool'],
            // `forecast` is the hook's too, but the token below does not allow it.
            tools: ['get_weather', 'forecast'],
          },
        }),
      },
    });
    const token = await gw.token({ hooks: ['weather'], tools: ['get_weather'] });
    const tool = 'mcp__hookgate-weather__get_weather';
    run = await runClaude({
      command: 'true',
      hooks: {},
      token,
      tool: { name: tool, input: { city: 'Berlin' } },
      // Claude Code's own approval of MCP tools still applies: headless, it must be pre-approved.
      allowedTools: tool,
      mcpServers: {
        'hookgate-weather': {
          type: 'http',
          url: `${gw.url}/v1/tenants/acme/hooks/weather/mcp`,
          headers: { Authorization: `Bearer ${token}` },
        },
      },
    });
  });
  afterAll(async () => {
    if (run) cleanup(run);
    await gw?.close();
  });

  it("offers the hook's tool, and nothing the token does not allow", () => {
    const ours = [...run.offered].filter((t) => t.startsWith('mcp__hookgate-weather__'));
    const mcpRequests = gw.logs.lines
      .filter((l) => String(l.path ?? '').endsWith('/mcp'))
      .map((l) => `${l.method} ${l.status}`);
    expect(ours, `offered: ${[...run.offered].join(', ')}; MCP requests: ${mcpRequests.join(', ')}`).toEqual([
      'mcp__hookgate-weather__get_weather',
    ]);
  });

  it('speaks 2026-07-28: its server/discover probe is answered, nothing refused, no initialize', async () => {
    const mcpRequests = gw.logs.lines
      .filter((l) => String(l.path ?? '').endsWith('/mcp'))
      .map((l) => `${l.method} ${l.status}`);
    expect(mcpRequests.length).toBeGreaterThan(0);
    expect(
      mcpRequests.filter((r) => / 4\d\d$/.test(r)),
      mcpRequests.join(', '),
    ).toEqual([]);
    const metrics = await gw.metricsText();
    const counted = (method: string) =>
      Number(
        new RegExp(
          `hookgate_mcp_requests_total\\{tenant="acme",hook="weather",method="${method}"\\} (\\d+)`,
        ).exec(metrics)?.[1] ?? 0,
      );
    expect(counted('server/discover'), metrics).toBeGreaterThan(0);
    expect(counted('initialize'), metrics).toBe(0);
  });

  it("the tool result the model receives is the hook's respond", () => {
    expect(run.toolResults.map((r) => r.content).join('\n'), JSON.stringify(run.result)).toContain(
      'Berlin: 18 C, light rain',
    );
    expect(run.toolResults[0]?.isError).toBe(false);
  });
});
