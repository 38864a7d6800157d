import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import entry, {
  type HookTool,
  type PluginTool,
  plainContext,
  readConfig,
  readTools,
} from '../../../integrations/openclaw/index.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { loadOcFixtures } from '../../helpers/openclaw-fixtures.js';
import { recorder } from '../../helpers/recording-hook.js';
import { startRedirectServer } from '../../helpers/redirect-server.js';

/**
 * The OpenClaw plugin's entry, registered as OpenClaw registers it (an api with `pluginConfig` and
 * `on`), its handlers called as OpenClaw calls them (`(event, ctx)`, ctx with functions and an
 * AbortSignal), forwarding to a real gateway on 127.0.0.1.
 */
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const down = {
  backend: {
    type: 'http',
    url: 'http://127.0.0.1:9/hook',
    secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`,
  },
};
const TOKEN_ENV = 'HOOKGATE_TEST_OPENCLAW_TOKEN';
let gw: TestGateway;
let silent: Server;
let silentUrl: string;
/** A port nothing listens on (bound once, then closed). */
let closedUrl: string;

const { exchanges } = loadOcFixtures();
const fixture = (file: string, hook: string) =>
  structuredClone(exchanges.find((x) => x.file.startsWith(file) && x.event === hook)!.body);

type Handler = (event: unknown, ctx: unknown) => Promise<unknown> | unknown;

/**
 * Registers the entry as OpenClaw does and hands back its handlers by hook name, and its tool
 * factories by tool name. `tools` stands for the plugin directory's hookgate-tools.json.
 */
function load(
  config: Record<string, unknown>,
  tools?: HookTool[],
): {
  handlers: Map<string, Handler>;
  factories: Map<string, (toolContext: unknown) => PluginTool>;
  logged: string[];
} {
  const handlers = new Map<string, Handler>();
  const factories = new Map<string, (toolContext: unknown) => PluginTool>();
  const logged: string[] = [];
  entry.register(
    {
      pluginConfig: config,
      logger: { warn: (m) => logged.push(m), error: (m) => logged.push(m) },
      on(hook, handler) {
        handlers.set(hook, handler);
      },
      registerTool(factory, opts) {
        factories.set(opts.name, factory);
      },
    },
    tools === undefined ? undefined : { tools, problems: [] },
  );
  return { handlers, factories, logged };
}

const url = (hook: string, base = gw.url) => `${base}/v1/tenants/acme/hooks/${hook}/openclaw`;

/** OpenClaw's before_tool_call as the plugin gets it: the event, and a ctx with non-data fields. */
function beforeToolCall(params: Record<string, unknown> = { command: 'echo hi' }) {
  const body = fixture('01', 'before_tool_call');
  const ctx = {
    ...body.ctx,
    abortSignal: new AbortController().signal,
    getSessionExtension: () => undefined,
    hookInvocation: { id: 1 },
  };
  return { event: { ...body.event, params }, ctx };
}

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        guard: { ...rec, modes: ['observe', 'llm', 'tool'], grants: { rewrite_tools: ['exec'] } },
        plain: { ...rec, modes: ['tool'] },
        closed: { ...down, modes: ['tool'], on_failure: 'closed' },
        weather: { ...rec, modes: ['tool'], tools: ['get_weather'] },
        weatherDown: { ...down, modes: ['tool'], tools: ['get_weather'], on_failure: 'closed' },
      }),
    },
  });
  process.env[TOKEN_ENV] = await gw.token();
  // Accepts connections and never answers: the plugin's own timeout must end the wait.
  silent = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  closedUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
  await new Promise((r) => gone.close(r));
});
afterAll(async () => {
  delete process.env[TOKEN_ENV];
  silent?.closeAllConnections();
  silent?.close();
  await gw?.close();
});
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

describe('forwarding through a real gateway', () => {
  it('registers before_tool_call and after_tool_call by default', () => {
    expect([...load({ url: url('guard'), tokenEnv: TOKEN_ENV }).handlers.keys()]).toEqual([
      'before_tool_call',
      'after_tool_call',
    ]);
  });

  it('no objection → returns nothing; the hook got the call with the plain ctx fields only', async () => {
    const { handlers } = load({ url: url('guard'), tokenEnv: TOKEN_ENV });
    const { event, ctx } = beforeToolCall();
    expect(await handlers.get('before_tool_call')!(event, ctx)).toBeUndefined();
    expect(recorder().calls).toHaveLength(1);
    expect(recorder().calls[0]).toMatchObject({
      method: 'hook.before_tool',
      params: {
        tool: 'exec',
        arguments: { command: 'echo hi' },
        meta: { AgentID: 'main', Source: 'openclaw' },
      },
    });
  });

  it('deny_tool → {block: true, blockReason}', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no exec' });
    const { handlers } = load({ url: url('guard'), tokenEnv: TOKEN_ENV });
    const { event, ctx } = beforeToolCall();
    expect(await handlers.get('before_tool_call')!(event, ctx)).toEqual({
      block: true,
      blockReason: 'no exec',
    });
  });

  it('a granted rewrite → the complete params', async () => {
    recorder().answer = (_m, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'echo safe' } },
    });
    const { handlers } = load({ url: url('guard'), tokenEnv: TOKEN_ENV });
    const { event, ctx } = beforeToolCall({ command: 'rm -rf x', timeout: 3 });
    expect(await handlers.get('before_tool_call')!(event, ctx)).toEqual({
      params: { command: 'echo safe', timeout: 3 },
    });
  });

  it('a refused rewrite → nothing (the tool runs as the model asked), audited', async () => {
    recorder().answer = (_m, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'echo safe' } },
    });
    const before = gw.logs.audits().length;
    const { handlers } = load({ url: url('plain'), tokenEnv: TOKEN_ENV });
    const { event, ctx } = beforeToolCall();
    expect(await handlers.get('before_tool_call')!(event, ctx)).toBeUndefined();
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({ dialect: 'openclaw', rule: 'rewrite_arguments_not_granted' }),
    ]);
  });

  it('after_tool_call and the LLM hooks are forwarded and return nothing', async () => {
    const hooks = ['before_tool_call', 'after_tool_call', 'llm_input', 'llm_output'];
    const { handlers } = load({ url: url('guard'), tokenEnv: TOKEN_ENV, hooks });
    for (const [file, hook] of [
      ['01', 'after_tool_call'],
      ['06', 'llm_input'],
      ['06', 'llm_output'],
    ]) {
      const b = fixture(file, hook);
      expect(await handlers.get(hook)!(b.event, b.ctx)).toBeUndefined();
    }
    expect(recorder().calls.map((c) => c.method)).toEqual([
      'hook.after_tool',
      'hook.before_llm',
      'hook.after_llm',
    ]);
  });
});

describe('failure: before_tool_call blocks with a reason naming it, never throws or hangs', () => {
  const call = async (config: Record<string, unknown>) => {
    const { handlers, logged } = load(config);
    const { event, ctx } = beforeToolCall();
    const out = (await handlers.get('before_tool_call')!(event, ctx)) as any;
    return { out, logged };
  };

  it('the hook’s backend down (on_failure closed) → the gateway’s block', async () => {
    const { out } = await call({ url: url('closed'), tokenEnv: TOKEN_ENV });
    expect(out).toMatchObject({ block: true, blockReason: expect.stringContaining('hook "closed" failed') });
  });

  it('a bad token → blocked, naming the 401', async () => {
    process.env.HOOKGATE_TEST_BAD_TOKEN = 'not-a-jwt';
    const { out, logged } = await call({ url: url('guard'), tokenEnv: 'HOOKGATE_TEST_BAD_TOKEN' });
    expect(out.block).toBe(true);
    expect(out.blockReason).toMatch(/^hookgate: tool call blocked: gateway answered HTTP 401/);
    expect(logged.join('\n')).toContain('HTTP 401');
    expect(recorder().calls).toEqual([]);
  });

  it('the token variable unset → blocked, naming the variable', async () => {
    const { out } = await call({ url: url('guard'), tokenEnv: 'HOOKGATE_TEST_UNSET_TOKEN' });
    expect(out.blockReason).toContain('HOOKGATE_TEST_UNSET_TOKEN');
  });

  it('the gateway unreachable → blocked, naming the connection error', async () => {
    const { out } = await call({ url: url('guard', closedUrl), tokenEnv: TOKEN_ENV });
    expect(out.blockReason).toMatch(/gateway unreachable \(ECONNREFUSED\)/);
  });

  it('a redirect → blocked naming it, never followed to an answer (a tool of its own fails)', async () => {
    const redirect = await startRedirectServer();
    try {
      const config = { url: url('guard', redirect.url), tokenEnv: TOKEN_ENV };
      const { handlers } = load(config);
      const { event, ctx } = beforeToolCall();
      expect(await handlers.get('before_tool_call')!(event, ctx)).toEqual({
        block: true,
        blockReason: 'hookgate: tool call blocked: gateway answered with a redirect (not followed)',
      });
      const { factories } = load(config, [
        { name: 'get_weather', description: '', parameters: { type: 'object' } },
      ]);
      const result = await factories.get('get_weather')!({}).execute('call_1', {});
      expect(result.details.ok).toBe(false);
      expect(redirect.allowed).toBe(0);
    } finally {
      await redirect.close();
    }
  });

  it('a gateway that never answers → blocked at the plugin’s timeout', async () => {
    const started = Date.now();
    const { out } = await call({ url: url('guard', silentUrl), tokenEnv: TOKEN_ENV, timeoutMs: 300 });
    // The message names the 300 ms; the bound, far above it, only says the plugin's 10 s default
    // did not apply.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(out.blockReason).toContain('no answer within 300 ms');
  });

  it('a bad config blocks every tool call, saying what is wrong', async () => {
    const { handlers, logged } = load({ url: 'ftp://x', timeoutMs: 60_000 });
    expect([...handlers.keys()]).toEqual(['before_tool_call']);
    const out = (await handlers.get('before_tool_call')!({}, {})) as any;
    expect(out.block).toBe(true);
    expect(out.blockReason).toContain('url must be http(s)');
    expect(out.blockReason).toContain('timeoutMs must be an integer from 100 to 14000');
    expect(logged).toHaveLength(1);
  });

  it('an observe hook’s failure throws (OpenClaw logs it and goes on)', async () => {
    const { handlers } = load({ url: url('guard', closedUrl), tokenEnv: TOKEN_ENV });
    const b = fixture('01', 'after_tool_call');
    await expect(handlers.get('after_tool_call')!(b.event, b.ctx)).rejects.toThrow(
      /after_tool_call: gateway unreachable/,
    );
  });
});

describe('the hook’s own tools: registered with OpenClaw, run by asking the gateway', () => {
  const weather: HookTool = {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  };
  // What OpenClaw hands a tool factory: ids, and much the hook must never see.
  const toolContext = {
    agentId: 'main',
    sessionKey: 'agent:main:main',
    config: { models: { providers: { x: { apiKey: 'sk-secret-in-openclaw-config' } } } },
    resolveApiKeyForProvider: async () => 'sk-secret',
  };

  it('registers each tool by name, described as hookgate-tools.json says', () => {
    const { factories } = load({ url: url('weather'), tokenEnv: TOKEN_ENV }, [weather]);
    expect([...factories.keys()]).toEqual(['get_weather']);
    const tool = factories.get('get_weather')!(toolContext);
    expect(tool).toMatchObject({
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: weather.parameters,
    });
  });

  it('execute → the hook’s respond is the result; the hook sees the ids and nothing else of the context', async () => {
    recorder().answer = (_m, p: any) => ({
      action: 'respond',
      result: { for_llm: `sunny in ${p.arguments.city}` },
    });
    const { factories } = load({ url: url('weather'), tokenEnv: TOKEN_ENV }, [weather]);
    const result = await factories.get('get_weather')!(toolContext).execute('call_1', { city: 'Oslo' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'sunny in Oslo' }], details: { ok: true } });
    expect(recorder().calls).toHaveLength(1);
    const seen = recorder().calls[0];
    expect(seen.method).toBe('hook.before_tool');
    expect(seen.params.meta).toMatchObject({ AgentID: 'main', SessionKey: 'agent:main:main' });
    expect(JSON.stringify(seen)).not.toContain('sk-secret');
  });

  it('before_tool_call and after_tool_call for its own tools are not forwarded (the hook answers them when they run)', async () => {
    const { handlers } = load({ url: url('weather'), tokenEnv: TOKEN_ENV }, [weather]);
    const { event, ctx } = beforeToolCall({ city: 'Oslo' });
    expect(
      await handlers.get('before_tool_call')!({ ...event, toolName: 'get_weather' }, ctx),
    ).toBeUndefined();
    const after = fixture('01', 'after_tool_call');
    await handlers.get('after_tool_call')!({ ...after.event, toolName: 'get_weather' }, after.ctx);
    expect(recorder().calls).toEqual([]);
    // Other tools are still forwarded.
    await handlers.get('before_tool_call')!(event, ctx);
    expect(recorder().calls.map((c) => c.params.tool)).toEqual(['exec']);
  });

  it('failures are failed results naming them, never a throw or a hang', async () => {
    const run = async (config: Record<string, unknown>) => {
      const { factories } = load(config, [weather]);
      return factories.get('get_weather')!(toolContext).execute('call_1', { city: 'Oslo' });
    };
    const backendDown = await run({ url: url('weatherDown'), tokenEnv: TOKEN_ENV });
    expect(backendDown.details.ok).toBe(false);
    expect(backendDown.content[0].text).toContain('hook "weatherDown" failed to answer tool "get_weather"');
    const unreachable = await run({ url: url('weather', closedUrl), tokenEnv: TOKEN_ENV });
    expect(unreachable.content[0].text).toMatch(
      /^hookgate: tool "get_weather" failed: gateway unreachable \(ECONNREFUSED\)/,
    );
    const started = Date.now();
    const silentOne = await run({ url: url('weather', silentUrl), tokenEnv: TOKEN_ENV, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(8_000); // not the 10 s default
    expect(silentOne.content[0].text).toContain('no answer within 300 ms');
    const badConfig = await run({ url: 'ftp://x' });
    expect(badConfig.details).toMatchObject({ ok: false });
    expect(badConfig.content[0].text).toContain('plugin config: url must be http(s)');
    expect(recorder().calls).toEqual([]);
  });

  it('OpenClaw’s abort signal ends the call', async () => {
    const { factories } = load({ url: url('weather', silentUrl), tokenEnv: TOKEN_ENV, timeoutMs: 10_000 }, [
      weather,
    ]);
    const abort = new AbortController();
    const pending = factories.get('get_weather')!(toolContext).execute('call_1', {}, abort.signal);
    setTimeout(() => abort.abort(), 50);
    const out = await pending;
    expect(out.details.ok).toBe(false);
    expect(out.content[0].text).toBe('hookgate: tool "get_weather" failed: cancelled by OpenClaw');
  });

  it('a tool named like an OpenClaw core tool is not registered, so OpenClaw’s own exec still asks the gateway', async () => {
    // OpenClaw drops a plugin tool named like a core one (any case) and runs its own tool.
    const bundled = readTools({ tools: [weather, { name: 'Exec' }] }, ['get_weather', 'Exec']);
    expect(bundled.tools.map((t) => t.name)).toEqual(['get_weather']);
    expect(bundled.problems).toEqual([
      'hookgate-tools.json: tool "Exec" is named like an OpenClaw core tool (OpenClaw would run its own); not registered',
    ]);
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no exec' });
    const { handlers } = load({ url: url('guard'), tokenEnv: TOKEN_ENV }, bundled.tools);
    const { event, ctx } = beforeToolCall();
    expect(await handlers.get('before_tool_call')!({ ...event, toolName: 'exec' }, ctx)).toEqual({
      block: true,
      blockReason: 'no exec',
    });
    expect(recorder().calls.map((c) => c.params.tool)).toEqual(['exec']);
  });

  it('hookgate-tools.json: only tools the manifest declares, each with a valid name, once', () => {
    const { tools, problems } = readTools(
      {
        tools: [
          { name: 'get_weather', description: 'w', parameters: { type: 'object' } },
          { name: 'undeclared' },
          { name: 'bad name!' },
          { name: 'get_weather' },
          { name: 'loose', parameters: { type: 'string' } },
        ],
      },
      ['get_weather', 'loose', 'bad name!'],
    );
    expect(tools).toEqual([
      { name: 'get_weather', description: 'w', parameters: { type: 'object' } },
      { name: 'loose', description: '', parameters: { type: 'object' } },
    ]);
    expect(problems).toEqual([
      'hookgate-tools.json: tool "undeclared" is not in the manifest\'s contracts.tools',
      'hookgate-tools.json: tools[2] has no valid name',
      'hookgate-tools.json: tool "get_weather" is listed twice',
    ]);
    expect(readTools({}, []).problems).toEqual(['hookgate-tools.json: "tools" is not a list']);
  });
});

describe('the plugin’s identity', () => {
  it('one id everywhere: the manifest, the entry, and the package name (unscoped), as OpenClaw compares them on install', () => {
    const read = (file: string) =>
      JSON.parse(readFileSync(new URL(`../../../integrations/openclaw/${file}`, import.meta.url), 'utf8'));
    const manifest = read('openclaw.plugin.json');
    const pkg = read('package.json');
    expect(entry.id).toBe(manifest.id);
    // OpenClaw 2026.9.6 (packageNameMatchesId): the name, or the part after the scope.
    expect(pkg.name.replace(/^@[^/]+\//, '')).toBe(manifest.id);
  });
});

describe('config and context', () => {
  it('reads the defaults', () => {
    expect(readConfig({ url: 'https://gw.example/v1/tenants/a/hooks/g/openclaw' })).toEqual({
      ok: true,
      url: 'https://gw.example/v1/tenants/a/hooks/g/openclaw',
      tokenEnv: 'HOOKGATE_TOKEN',
      timeoutMs: 10_000,
      hooks: ['before_tool_call', 'after_tool_call'],
    });
  });

  it.each([
    [{}, 'url is missing'],
    [{ url: 'https://gw.example/v1/tenants/a/hooks/g' }, 'must end in'],
    [{ url: 'https://gw.example/v1/tenants/a/hooks/g/openclaw', tokenEnv: 'eyJhbGciOi.x.y' }, 'tokenEnv'],
    [{ url: 'https://gw.example/v1/tenants/a/hooks/g/openclaw', hooks: ['before_agent_run'] }, 'hooks must'],
  ])('refuses %j', (raw, problem) => {
    const r = readConfig(raw);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.problems.join('; ')).toContain(problem);
  });

  it('keeps only the JSON-safe fields of ctx', () => {
    const cyclic: any = {};
    cyclic.self = cyclic;
    expect(
      plainContext({
        agentId: 'main',
        trace: { traceId: 't' },
        abortSignal: new AbortController().signal,
        hookInvocation: { id: 1 },
        getSessionExtension: () => 1,
        cyclic,
        n: 1n,
      }),
    ).toEqual({ agentId: 'main', trace: { traceId: 't' } });
  });
});
