import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hermesHooksYaml } from '../../../src/hosts/hermes/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { startFakeModel } from './fake-openai.js';
import {
  HERMES_BIN,
  HERMES_VERSION,
  HOOKGATE_COMMAND,
  hermesInstalled,
  hooksTest,
  oneShot,
} from './run-hermes.js';

/**
 * The real Hermes Agent (pinned in scripts/hosts/install-hermes.sh) firing `hookgate hermes-hook`
 * through `hermes hooks test` (its production spawn-and-parse path, no model), with the hooks
 * block `hookgate setup hermes` prints, against a gateway on 127.0.0.1. What Hermes decided is
 * what it prints as the parsed result.
 */
const missing = `Hermes ${HERMES_VERSION} is not installed at ${HERMES_BIN} (bash scripts/hosts/install.sh)`;
const why = hermesInstalled ? '' : ` (skipped: ${missing})`;
if (!hermesInstalled && process.env.CI) {
  describe('Hermes host', () => {
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

/** A port nothing listens on: the gateway is down. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(!hermesInstalled)(`Hermes ${HERMES_VERSION} through hookgate${why}`, () => {
  if (!hermesInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;
  let token: string;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          plain: { ...rec, modes: ['tool'] },
          granted: { ...rec, modes: ['tool'], grants: { rewrite_tools: ['terminal'] } },
          strict: { ...rec, modes: ['tool'], on_failure: 'closed' },
          down: { ...deadBackend, modes: ['tool'], on_failure: 'closed' },
        }),
      },
    });
    token = await gw.token();
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = () => ({ action: 'continue' });
  });

  const yamlFor = (hook: string, base = gw.url, noModify = false) =>
    hermesHooksYaml(gw.config.tenants.get('acme')!.hooks.get(hook)!, base, {
      command: HOOKGATE_COMMAND,
      noModify,
    });
  const fire = (
    hook: string,
    extra: { token?: string; base?: string; payload?: Record<string, unknown>; noModify?: boolean } = {},
  ) =>
    hooksTest({
      event: 'pre_tool_call',
      tool: 'terminal',
      hooksYaml: yamlFor(hook, extra.base, extra.noModify),
      token: extra.token ?? token,
      payload: extra.payload,
    });

  it('a hook denies the call: Hermes blocks it with the reason', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'E2E-DENY' });
    const run = await fire('plain');
    expect(run.parsed).toEqual({ action: 'block', message: 'E2E-DENY' });
    // The hook saw Hermes's own synthetic call.
    expect(recorder().calls).toEqual([
      {
        method: 'hook.before_tool',
        params: expect.objectContaining({ tool: 'terminal', arguments: { command: 'echo hello' } }),
      },
    ]);
  });

  it('no decision: Hermes goes on (nothing parsed)', async () => {
    const run = await fire('plain');
    expect(run.hookExit).toBe(0);
    expect(run.parsed).toBeNull();
  });

  it('a granted rewrite reaches Hermes as modify (0.19 has no modify yet and ignores it)', async () => {
    recorder().answer = (_m: string, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'echo safe' } },
    });
    const run = await fire('granted');
    expect(JSON.parse(run.hookStdout!)).toEqual({ action: 'modify', args: { command: 'echo safe' } });
    // Hermes 0.19's _parse_response knows block only; later releases merge `args` (see docs/hosts/hermes.md).
    expect(run.parsed).toBeNull();
  });

  it('with --no-modify (setup hermes --hermes-no-modify) a granted rewrite blocks the call instead', async () => {
    recorder().answer = (_m: string, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'echo safe' } },
    });
    const run = await fire('granted', { noModify: true });
    expect(run.parsed).toMatchObject({ action: 'block' });
    expect(String(run.parsed!.message)).toContain('cannot apply a rewrite');
  });

  it('a rewrite that removes an argument is refused by the gateway and audited with dialect "hermes"', async () => {
    recorder().answer = (_m: string, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'echo x' } },
    });
    const before = gw.logs.audits().length;
    const run = await fire('granted', { payload: { args: { command: 'echo x', timeout: 30 } } });
    expect(run.hookStdout).toBeUndefined();
    expect(run.parsed).toBeNull();
    expect(gw.logs.audits().slice(before)).toEqual([
      expect.objectContaining({ rule: 'rewrite_removes_argument', dialect: 'hermes', tool: 'terminal' }),
    ]);
  });

  it('the hook’s backend is down and it fails closed: the gateway answers block', async () => {
    const run = await fire('down');
    expect(run.parsed).toMatchObject({ action: 'block' });
    expect(String(run.parsed!.message)).toContain('hook "down" failed');
  });

  it('the gateway is down: a fail-closed entry blocks (exit 2 and the block on stdout), an open one goes on', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    const closed = await fire('strict', { base });
    expect(closed.hookExit).toBe(2);
    expect(closed.parsed).toMatchObject({ action: 'block' });
    expect(String(closed.parsed!.message)).toContain('hookgate: gateway failed');
    const open = await fire('plain', { base });
    expect(open.hookExit).toBe(0);
    expect(open.parsed).toBeNull();
  });

  it('a bad token: the fail-closed entry blocks naming HTTP 401, and the hook is never called', async () => {
    const run = await fire('strict', { token: 'not-a-jwt' });
    expect(run.parsed).toMatchObject({ action: 'block' });
    expect(String(run.parsed!.message)).toContain('HTTP 401');
    expect(recorder().calls).toEqual([]);
  });
});

describe.skipIf(!hermesInstalled)(`Hermes ${HERMES_VERSION} headless (hermes -z) via hookgate${why}`, () => {
  let gw: TestGateway;
  const marker = () => Math.random().toString(16).slice(2, 12);

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: { acme: tenantDoc({ plain: { ...rec, modes: ['tool'] } }) },
    });
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = () => ({ action: 'continue' });
  });

  const run = async (command: string) => {
    const model = await startFakeModel(command);
    try {
      const hooksYaml = hermesHooksYaml(gw.config.tenants.get('acme')!.hooks.get('plain')!, gw.url, {
        command: HOOKGATE_COMMAND,
      });
      const out = await oneShot({ modelUrl: model.url, hooksYaml, token: await gw.token() });
      return { ...out, toolResults: model.toolResults };
    } finally {
      await model.close();
    }
  };

  it('a hook denies the model’s terminal call: it does not run, the model reads the reason', async () => {
    const m = marker();
    recorder().answer = (method) =>
      method === 'hook.before_tool'
        ? { action: 'deny_tool', reason: `E2E-DENY-${m}` }
        : { action: 'continue' };
    const r = await run(`echo ran-${m}`);
    expect(r.toolResults).toHaveLength(1);
    expect(r.toolResults[0]).toContain(`E2E-DENY-${m}`);
    expect(r.toolResults[0]).not.toContain(`ran-${m}`);
    expect(recorder().calls[0]).toMatchObject({
      method: 'hook.before_tool',
      params: { tool: 'terminal', arguments: { command: `echo ran-${m}` } },
    });
  });

  it('no decision: the call runs, and the hook sees its result (post_tool_call → after_tool)', async () => {
    const m = marker();
    const r = await run(`echo ran-${m}`);
    expect(r.toolResults).toHaveLength(1);
    expect(r.toolResults[0]).toContain(`ran-${m}`);
    const after = recorder().calls.find((c) => c.method === 'hook.after_tool');
    expect(after?.params.result.for_llm).toContain(`ran-${m}`);
  });
});
