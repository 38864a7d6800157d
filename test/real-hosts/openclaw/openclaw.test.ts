import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openClawSetup, writeOpenClawPlugin } from '../../../src/hosts/openclaw/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { FINAL_TEXT } from './fake-openai.js';
import { OPENCLAW_ENTRY, OPENCLAW_VERSION, openclawInstalled, runOpenClaw } from './run-openclaw.js';
import { WEATHER_DESCRIPTION, weatherTool } from '../weather-tool.js';

/**
 * The real OpenClaw (pinned in scripts/hosts/install-openclaw.sh), headless, with the hookgate
 * plugin from integrations/openclaw forwarding to a gateway on 127.0.0.1, and a fake model that
 * asks for one harmless exec. What ran is read from the tool message OpenClaw sent the model: the
 * command prints shell arithmetic, so its output (…-42-…) differs from its text ($((40+2))).
 */
const missing = `OpenClaw ${OPENCLAW_VERSION} is not installed at ${OPENCLAW_ENTRY} (bash scripts/hosts/install.sh)`;
const why = openclawInstalled ? '' : ` (skipped: ${missing})`;
if (!openclawInstalled && process.env.CI) {
  describe('OpenClaw host', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const deadBackend = {
  backend: {
    type: 'http',
    url: 'http://127.0.0.1:9/hook',
    secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`,
  },
};
const marker = () => Math.random().toString(16).slice(2, 12);
const TOKEN_ENV = 'HOOKGATE_TOKEN';

describe.skipIf(!openclawInstalled)(`OpenClaw ${OPENCLAW_VERSION} through hookgate${why}`, () => {
  if (!openclawInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          granted: { ...rec, modes: ['tool'], grants: { rewrite_tools: ['exec'] } },
          plain: { ...rec, modes: ['tool'] },
          down: { ...deadBackend, modes: ['tool'], on_failure: 'closed' },
          weather: {
            ...rec,
            modes: ['tool'],
            ...weatherTool,
          },
        }),
      },
    });
  });
  let pluginDir: string;
  afterAll(async () => {
    await gw?.close();
    if (pluginDir) rmSync(pluginDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = () => ({ action: 'continue' });
  });

  const plugin = (hook: string) => ({
    url: `${gw.url}/v1/tenants/acme/hooks/${hook}/openclaw`,
    tokenEnv: TOKEN_ENV,
    timeoutMs: 5000,
  });
  const run = async (hook: string, command: string, token?: string, install = false) =>
    runOpenClaw({
      command,
      plugin: plugin(hook),
      env: { [TOKEN_ENV]: token ?? (await gw.token()) },
      install,
    });
  const diag = (r: { exitCode: number | null; stderr: string; stdout: string }) =>
    `exit ${r.exitCode}\nstdout: ${r.stdout.slice(0, 1500)}\nstderr: ${r.stderr.slice(-3000)}`;

  it('no objection: the command runs as the model asked', async () => {
    const m = marker();
    const r = await run('plain', `echo original-$((40+2))-${m}`);
    expect(r.toolMessages, diag(r)).toHaveLength(1);
    expect(r.toolMessages[0]).toContain(`original-42-${m}`);
    expect(r.exitCode).toBe(0);
    expect(JSON.stringify(r.result)).toContain(FINAL_TEXT);
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool', 'hook.after_tool']);
    expect(recorder().calls[1].params.result.for_llm).toContain(`original-42-${m}`);
  });

  it('installed with `openclaw plugins install`, a hook denies the command: it does not run, the model gets the reason', async () => {
    const m = marker();
    recorder().answer = () => ({ action: 'deny_tool', reason: `E2E-DENY-${m}` });
    const r = await run('plain', `echo original-$((40+2))-${m}`, undefined, true);
    expect(r.toolMessages, diag(r)).toHaveLength(1);
    expect(r.toolMessages[0]).toContain(`E2E-DENY-${m}`);
    expect(r.toolMessages[0]).not.toContain(`original-42-${m}`);
    // The package's name matches the manifest id: OpenClaw has nothing to say about the id.
    expect(r.installOutput).toContain('Installed plugin: hookgate');
    expect(r.installOutput).not.toContain('differs from npm package name');
  });

  it('a granted rewrite: the rewritten command runs', async () => {
    const m = marker();
    recorder().answer = (method, params: any) =>
      method === 'hook.before_tool'
        ? {
            action: 'modify',
            call: { ...params, arguments: { ...params.arguments, command: `echo rewritten-$((40+2))-${m}` } },
          }
        : { action: 'continue' };
    const r = await run('granted', `echo original-$((40+2))-${m}`);
    expect(r.toolMessages, diag(r)).toHaveLength(1);
    expect(r.toolMessages[0]).toContain(`rewritten-42-${m}`);
    expect(r.toolMessages[0]).not.toContain(`original-42-${m}`);
  });

  it('a rewrite the hook is not granted: the original runs, and the refusal is audited as openclaw', async () => {
    const m = marker();
    recorder().answer = (method, params: any) =>
      method === 'hook.before_tool'
        ? {
            action: 'modify',
            call: { ...params, arguments: { ...params.arguments, command: `echo rewritten-${m}` } },
          }
        : { action: 'continue' };
    const before = gw.logs.audits().length;
    const r = await run('plain', `echo original-$((40+2))-${m}`);
    expect(r.toolMessages, diag(r)).toHaveLength(1);
    expect(r.toolMessages[0]).toContain(`original-42-${m}`);
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({ dialect: 'openclaw', rule: 'rewrite_arguments_not_granted', tool: 'exec' }),
    ]);
  });

  it('the hook’s backend down (on_failure closed): blocked, and the model is told why', async () => {
    const m = marker();
    const r = await run('down', `echo original-$((40+2))-${m}`);
    expect(r.toolMessages, diag(r)).toHaveLength(1);
    expect(r.toolMessages[0]).toContain('hookgate: hook "down" failed');
    expect(r.toolMessages[0]).not.toContain(`original-42-${m}`);
  });

  it('a bad token: blocked, and the model is told the gateway refused it', async () => {
    const m = marker();
    const r = await run('plain', `echo original-$((40+2))-${m}`, 'not-a-jwt');
    expect(r.toolMessages, diag(r)).toHaveLength(1);
    expect(r.toolMessages[0]).toContain('gateway answered HTTP 401');
    expect(r.toolMessages[0]).not.toContain(`original-42-${m}`);
    expect(recorder().calls).toEqual([]);
  });

  it('a plugin whose tools name a core tool (exec): OpenClaw runs its own exec, and the plugin still asks the hook', async () => {
    // As an older setup would have written it: exec declared and described beside get_weather.
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-oc-plugin-'));
    try {
      const hook = gw.config.tenants.get('acme')!.hooks.get('weather')!;
      const setup = openClawSetup(hook, gw.url);
      setup.tools.push({ name: 'exec', description: 'Run a command', parameters: { type: 'object' } });
      writeOpenClawPlugin(dir, setup, true);
      const m = marker();
      recorder().answer = (_method, params: any) =>
        params.tool === 'exec' ? { action: 'deny_tool', reason: `E2E-CORE-${m}` } : { action: 'continue' };
      const r = await runOpenClaw({
        command: `echo original-$((40+2))-${m}`,
        plugin: plugin('weather'),
        env: { [TOKEN_ENV]: await gw.token() },
        install: true,
        pluginDir: dir,
      });
      expect(r.toolMessages, diag(r)).toHaveLength(1);
      expect(r.toolMessages[0]).toContain(`E2E-CORE-${m}`);
      expect(r.toolMessages[0]).not.toContain(`original-42-${m}`);
      expect(recorder().calls.map((c) => c.params.tool)).toContain('exec');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('the hook’s own tool, registered by the plugin `hookgate setup openclaw --out` wrote', () => {
    beforeAll(() => {
      pluginDir = mkdtempSync(join(tmpdir(), 'hookgate-oc-plugin-'));
      const hook = gw.config.tenants.get('acme')!.hooks.get('weather')!;
      writeOpenClawPlugin(pluginDir, openClawSetup(hook, gw.url), true);
    });
    const runTool = async (city: string, token?: string) =>
      runOpenClaw({
        command: { name: 'get_weather', arguments: { city } },
        plugin: plugin('weather'),
        env: { [TOKEN_ENV]: token ?? (await gw.token()) },
        install: true,
        pluginDir,
        directTools: true,
      });

    it('offered to the model as the hook describes it; the hook’s respond is the result the model reads', async () => {
      const m = marker();
      recorder().answer = (_method, params: any) => ({
        action: 'respond',
        result: { for_llm: `E2E-WEATHER-${m}: sunny in ${params.arguments.city}` },
      });
      const r = await runTool('Oslo');
      expect(r.offered.get('get_weather'), diag(r)).toMatchObject({
        description: WEATHER_DESCRIPTION,
        parameters: { properties: { city: { type: 'string' } }, required: ['city'] },
      });
      expect(r.toolMessages, diag(r)).toHaveLength(1);
      expect(r.toolMessages[0]).toContain(`E2E-WEATHER-${m}: sunny in Oslo`);
      expect(JSON.stringify(r.result)).toContain(FINAL_TEXT);
      // Asked once, when the tool ran: not again by the plugin's before/after_tool_call.
      expect(recorder().calls.map((c) => [c.method, c.params.tool, c.params.meta.Source])).toEqual([
        ['hook.before_tool', 'get_weather', 'openclaw'],
      ]);
    });

    it('under OpenClaw’s default Tool Search: found in the catalog and run through tool_call, same answer', async () => {
      const m = marker();
      recorder().answer = (_method, params: any) => ({
        action: 'respond',
        result: { for_llm: `E2E-SEARCHED-${m}: windy in ${params.arguments.city}` },
      });
      const r = await runOpenClaw({
        command: { name: 'tool_call', arguments: { id: 'get_weather', args: { city: 'Bergen' } } },
        plugin: plugin('weather'),
        env: { [TOKEN_ENV]: await gw.token() },
        install: true,
        pluginDir,
      });
      // Not offered directly: behind Tool Search, whose tool_call the model uses.
      expect(r.offered.has('get_weather'), diag(r)).toBe(false);
      expect(r.offered.has('tool_call'), diag(r)).toBe(true);
      expect(r.toolMessages, diag(r)).toHaveLength(1);
      expect(r.toolMessages[0]).toContain(`E2E-SEARCHED-${m}: windy in Bergen`);
      // OpenClaw runs its tool hooks for the tool_call wrapper too, so a guard sees it (as the tool
      // `tool_call`, with the id and args); the hook's own tool is asked once, when it runs.
      const wrapper = { id: 'get_weather', args: { city: 'Bergen' } };
      expect(recorder().calls.map((c) => [c.method, c.params.tool, c.params.arguments])).toEqual([
        ['hook.before_tool', 'tool_call', wrapper],
        ['hook.before_tool', 'get_weather', { city: 'Bergen' }],
        ['hook.after_tool', 'tool_call', wrapper],
      ]);
    });

    it('a token that may not use the tool: the model reads the refusal, the hook is never asked, audited', async () => {
      recorder().answer = () => ({ action: 'respond', result: { for_llm: 'must not be seen' } });
      const before = gw.logs.audits().length;
      const r = await runTool('Oslo', await gw.token({ hooks: ['weather'], tools: ['other_tool'] }));
      expect(r.toolMessages, diag(r)).toHaveLength(1);
      expect(r.toolMessages[0]).toContain('Unknown tool: get_weather');
      expect(r.toolMessages[0]).not.toContain('must not be seen');
      expect(recorder().calls).toEqual([]);
      expect(gw.logs.audits().slice(before)).toEqual([
        expect.objectContaining({ dialect: 'openclaw', rule: 'tool_not_granted', tool: 'get_weather' }),
      ]);
    });
  });
});
