/**
 * Heavy libraries a gateway may never use are imported only when it does: OpenTelemetry's SDK and
 * OTLP exporter by a gateway that traces (server.tracing), the MCP SDK on the first MCP POST. Loaded
 * at start, they would add their heap (marked at every full GC) and their start-up time to every
 * gateway. A real `hookgate serve` process reports the npm packages it has resolved so far.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/node/token.js';
import { compileTestConfig, REPO, tenantDoc } from '../helpers/gateway.js';
import { type ProbedGateway, serveProbed } from '../helpers/probed-gateway.js';

const PROBE = join(REPO, 'test', 'helpers', 'loaded-packages-probe.mjs');
const HOOKS = {
  m: {
    backend: { type: 'module', module: join(REPO, 'examples', 'weather-hook.ts') },
    tools: ['get_weather'],
  },
};
let gw: ProbedGateway | undefined;

afterEach(() => {
  gw?.kill();
  gw = undefined;
});

/** Starts `hookgate serve` with these arguments under the probe, once it listens. */
async function serve(args: string[]) {
  gw = await serveProbed(PROBE, args);
  const running = gw;
  return {
    url: running.url,
    /** The npm packages the gateway has resolved by now. */
    packages: async () => JSON.parse(await running.ask('loaded-packages')) as string[],
  };
}

function configFile(server: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'hookgate-lazy-')), 'hookgate.json');
  writeFileSync(file, JSON.stringify({ server, tenants: { acme: tenantDoc(HOOKS) } }));
  return file;
}

const scoped = (packages: string[], scope: string) => packages.filter((p) => p.startsWith(`${scope}/`));

describe('a gateway imports OpenTelemetry and the MCP SDK only when it uses them', () => {
  it('without server.tracing and before any MCP call (the demo), neither is loaded', async () => {
    const gw = await serve(['--demo', '--port', '0']);
    const packages = await gw.packages();
    // The probe sees the gateway's own dependencies, so an empty answer cannot pass for "none".
    expect(packages).toContain('hono');
    expect(scoped(packages, '@opentelemetry')).toEqual([]);
    expect(scoped(packages, '@modelcontextprotocol')).toEqual([]);
  });

  it('with server.tracing, the OTLP exporter is loaded at start', async () => {
    // Nothing listens there: spans are exported in batches later, and start-up does not wait.
    const gw = await serve([
      '--config',
      configFile({ tracing: { otlp_endpoint: 'http://127.0.0.1:9' } }),
      '--port',
      '0',
    ]);
    expect(scoped(await gw.packages(), '@opentelemetry')).toContain(
      '@opentelemetry/exporter-trace-otlp-http',
    );
  });

  it('the first MCP POST loads the MCP SDK and is answered', async () => {
    const gw = await serve(['--config', configFile({}), '--port', '0']);
    expect(scoped(await gw.packages(), '@modelcontextprotocol')).toEqual([]);
    const tenant = compileTestConfig({ tenants: { acme: tenantDoc(HOOKS) } }).tenants.get('acme')!;
    const token = await signDevToken(tenant, { hooks: ['*'], ttlSeconds: 600 });
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/m/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { result?: { tools?: { name: string }[] } };
    expect(answer.result?.tools?.map((t) => t.name)).toContain('get_weather');
    expect(scoped(await gw.packages(), '@modelcontextprotocol')).toContain('@modelcontextprotocol/server');
  });
});
