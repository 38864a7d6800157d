import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTools } from '../../../integrations/openclaw/index.js';
import { isOpenClawCoreTool, OPENCLAW_CORE_TOOLS } from '../../../src/hosts/openclaw/core-tools.js';
import { OPENCLAW_TOOL_NAME } from '../../../src/hosts/openclaw/setup.node.js';
import { runCli } from '../../helpers/cli.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';

const dir = mkdtempSync(join(tmpdir(), 'hookgate-setup-openclaw-'));
const config = join(dir, 'hookgate.yaml');
process.env.HOOKGATE_SETUP_OPENCLAW_SECRET = 'setup-test-secret-0123456789-abcdefghijkl';
const module = { type: 'module', module: 'x.js' };
const weatherSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
writeFileSync(
  config,
  JSON.stringify({
    server: { host: '127.0.0.1', port: 8787 },
    tenants: {
      acme: {
        auth: { keys: [{ alg: 'HS256', secret: 'env:HOOKGATE_SETUP_OPENCLAW_SECRET' }] },
        hooks: {
          guard: { backend: module, modes: ['tool'], on_failure: 'closed', timeout_ms: 4000 },
          weather: {
            backend: module,
            modes: ['tool'],
            tools: ['get_weather', 'get_time'],
            tool_definitions: {
              get_weather: { description: 'Weather for a city', input_schema: weatherSchema },
            },
          },
          all: { backend: module, modes: ['observe', 'llm', 'tool', 'approve'], approval_timeout_ms: 20_000 },
          dotted: { backend: module, modes: ['tool'], tools: ['weather.get'] },
          shadow: { backend: module, modes: ['tool'], tools: ['get_weather', 'Exec'] },
          sdk: { backend: module, modes: ['llm', 'tool'], tools: ['get_weather', 'get_time'] },
        },
      },
    },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `hookgate setup openclaw --config … --tenant acme …` in this process, with its own streams. */
const run = (args: string[]) =>
  runCli(['setup', 'openclaw', '--config', config, '--tenant', 'acme', ...args], { cwd: dir });

describe('hookgate setup openclaw', () => {
  it('prints the plugin entry: the hook’s route, the hooks its modes cover, a limit above its deadline', async () => {
    const r = await run(['--hook', 'guard', '--url', 'https://gw.example.com/']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      plugins: {
        entries: {
          hookgate: {
            enabled: true,
            config: {
              url: 'https://gw.example.com/v1/tenants/acme/hooks/guard/openclaw',
              tokenEnv: 'HOOKGATE_TOKEN',
              timeoutMs: 5000,
              hooks: ['before_tool_call', 'after_tool_call'],
            },
          },
        },
      },
    });
    expect(r.err).toContain('export HOOKGATE_TOKEN');
    expect(r.err).toContain('--hooks guard');
  });

  it('LLM-level hooks come with OpenClaw’s allowConversationAccess; a deadline past 14 s is capped and said', async () => {
    const r = await run(['--hook', 'all']);
    const entry = JSON.parse(r.out).plugins.entries.hookgate;
    expect(entry.hooks).toEqual({ allowConversationAccess: true });
    expect(entry.config.hooks).toEqual([
      'before_tool_call',
      'after_tool_call',
      'llm_input',
      'llm_output',
      'before_prompt_build',
    ]);
    expect(entry.config.url).toBe('http://127.0.0.1:8787/v1/tenants/acme/hooks/all/openclaw');
    expect(entry.config.timeoutMs).toBe(14_000);
    expect(r.err).toContain("does not fit under OpenClaw's 15 s budget");
  });

  it('a hook with tools: says they need --out', async () => {
    const r = await run(['--hook', 'weather']);
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      "the hook's tools (get_weather, get_time) need the plugin written with --out DIR",
    );
  });

  it('--out writes the plugin: the manifest declares the tools, hookgate-tools.json describes them', async () => {
    const out = join(dir, 'plugin');
    const r = await run(['--hook', 'weather', '--out', 'plugin']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`openclaw plugins install --force --accept-capabilities ${out}`);
    expect(r.err).toContain('no tool_definitions for get_time');
    const manifest = JSON.parse(readFileSync(join(out, 'openclaw.plugin.json'), 'utf8'));
    expect(manifest.id).toBe('hookgate');
    expect(manifest.contracts).toEqual({ tools: ['get_weather', 'get_time'] });
    const tools = JSON.parse(readFileSync(join(out, 'hookgate-tools.json'), 'utf8'));
    expect(tools).toEqual({
      tools: [
        { name: 'get_weather', description: 'Weather for a city', parameters: weatherSchema },
        { name: 'get_time', description: '', parameters: { type: 'object' } },
      ],
    });
    // What the plugin itself will read: every tool kept, none reported.
    expect(readTools(tools, manifest.contracts.tools)).toEqual({ tools: tools.tools, problems: [] });
    for (const f of ['index.js', 'index.d.ts', 'package.json', 'README.md']) {
      expect(readFileSync(join(out, f), 'utf8')).toBe(
        readFileSync(join(__dirname, '../../../integrations/openclaw', f), 'utf8'),
      );
    }
  });

  it('the written plugin packs with its tools (npm pack, for publishing it)', async () => {
    const out = join(dir, 'packed');
    expect((await run(['--hook', 'weather', '--out', out])).code).toBe(0);
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json'], { cwd: out });
    const files = JSON.parse(stdout)[0].files.map((f: { path: string }) => f.path);
    expect(files.sort()).toEqual(
      [
        'README.md',
        'hookgate-tools.json',
        'index.d.ts',
        'index.js',
        'openclaw.plugin.json',
        'package.json',
      ].sort(),
    );
  }, 30_000);

  it('refuses a directory with files in it unless --force', async () => {
    const out = join(dir, 'busy');
    mkdirSync(out);
    writeFileSync(join(out, 'keep.txt'), 'x');
    const r = await run(['--hook', 'weather', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('is not empty (--force writes over it)');
    expect(existsSync(join(out, 'index.js'))).toBe(false);
    expect((await run(['--hook', 'weather', '--out', out, '--force'])).code).toBe(0);
    expect(existsSync(join(out, 'index.js'))).toBe(true);
  });

  it('a tool name OpenClaw would refuse is named, and nothing is written', async () => {
    const out = join(dir, 'dotted');
    const r = await run(['--hook', 'dotted', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('tool "weather.get" of hook "dotted" is not a name OpenClaw accepts');
    expect(existsSync(out)).toBe(false);
  });

  it('a tool named like an OpenClaw core tool is refused (OpenClaw would run its own, unguarded), nothing written', async () => {
    const out = join(dir, 'shadow');
    const r = await run(['--hook', 'shadow', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('tool "Exec" of hook "shadow" is named like an OpenClaw core tool');
    expect(existsSync(out)).toBe(false);
  });

  describe('--from-gateway: the tools as the running gateway describes them', () => {
    // The running gateway's sdk hook declares get_weather with its schema; the config file (whose
    // sdk hook has the same tools) describes neither.
    const sdkHook = {
      backend: { type: 'module', module: 'examples/weather-sdk.ts' },
      modes: ['llm', 'tool'],
    };
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startTestGateway({
        tenants: { acme: tenantDoc({ sdk: { ...sdkHook, tools: ['get_weather', 'get_time'] } }) },
      });
    });
    afterAll(() => gw?.close());
    const setup = (args: string[], token?: string) =>
      runCli(
        [
          'setup',
          'openclaw',
          '--config',
          config,
          '--tenant',
          'acme',
          '--hook',
          'sdk',
          '--url',
          gw.url,
          ...args,
        ],
        {
          cwd: dir,
          env: { ...process.env, HOOKGATE_TOKEN: token },
        },
      );

    it('writes the SDK hook’s own description and schema; a tool nobody describes stays loose', async () => {
      const out = join(dir, 'from-gw');
      const r = await setup(['--out', out, '--from-gateway'], await gw.token());
      expect(r.code, r.err).toBe(0);
      const { tools } = JSON.parse(readFileSync(join(out, 'hookgate-tools.json'), 'utf8'));
      expect(tools[0]).toMatchObject({
        name: 'get_weather',
        description: expect.stringMatching(/weather/i),
        parameters: { type: 'object', properties: { city: expect.any(Object) } },
      });
      expect(tools[1]).toEqual({ name: 'get_time', description: '', parameters: { type: 'object' } });
      expect(r.err).toContain('no tool_definitions for get_time');
    });

    it('without the token, or with one the gateway refuses: exit 2 or 1 naming it, nothing written', async () => {
      const none = await setup(['--out', join(dir, 'no-token'), '--from-gateway']);
      expect(none.code).toBe(2);
      expect(none.err).toContain('HOOKGATE_TOKEN');
      const bad = await setup(['--out', join(dir, 'bad-token'), '--from-gateway'], 'not-a-jwt');
      expect(bad.code).toBe(1);
      expect(bad.err).toContain('answered tools/list with HTTP 401');
      expect(existsSync(join(dir, 'bad-token'))).toBe(false);
      const noOut = await setup(['--from-gateway'], await gw.token());
      expect(noOut.code).toBe(2);
    });
  });

  it('names a tool the way the plugin does: setup refuses exactly the names the plugin would drop', () => {
    const names = ['get_weather', 'a-b', 'X1', 'weather.get', '9x', '_x', 'x'.repeat(64), 'x'.repeat(65), ''];
    const plugin = readTools({ tools: names.map((name) => ({ name })) }, names).tools.map((t) => t.name);
    expect(names.filter((n) => OPENCLAW_TOOL_NAME.test(n))).toEqual(plugin);
    expect(plugin).toEqual(['get_weather', 'a-b', 'X1', 'x'.repeat(64)]);
  });

  it('keeps OpenClaw’s core tool names as the plugin does: setup refuses exactly the names the plugin drops', () => {
    const names = [
      ...OPENCLAW_CORE_TOOLS.filter((n) => OPENCLAW_TOOL_NAME.test(n)),
      ...OPENCLAW_CORE_TOOLS.map((n) => n.toUpperCase()).filter((n) => OPENCLAW_TOOL_NAME.test(n)),
      'get_weather',
      'exec_remote',
      'my-browser',
    ];
    const plugin = readTools({ tools: names.map((name) => ({ name })) }, names).tools.map((t) => t.name);
    expect(names.filter((n) => !isOpenClawCoreTool(n))).toEqual(plugin);
    expect(plugin).toEqual(['get_weather', 'exec_remote', 'my-browser']);
  });

  it('--out is only for openclaw', async () => {
    const r = await runCli(
      ['setup', 'hermes', '--config', config, '--tenant', 'acme', '--hook', 'guard', '--out', 'x'],
      { cwd: dir },
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('--out, --force and --from-gateway are for setup openclaw');
  });
});
