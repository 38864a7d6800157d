import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { geminiSettings } from '../../../src/hosts/gemini/setup.js';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { MISBEHAVIOURS, startMisbehavingGateway } from '../misbehaving-gateway.js';
import { startFakeGemini } from './fake-gemini.js';
import { GEMINI_BIN, GEMINI_VERSION, geminiInstalled, runGemini } from './run-gemini.js';

/**
 * The real Gemini CLI (pinned in scripts/hosts/install-gemini.sh) headless (`-p --skip-trust
 * --approval-mode yolo`) against a fake Gemini API on 127.0.0.1 that asks for one
 * `run_shell_command` call, with the settings.json hooks `hookgate setup gemini` prints (matcher
 * `.*`) running `hookgate hook --host gemini` against a gateway on 127.0.0.1. What ran is what the
 * model got back as the function response.
 */
const missing = `Gemini CLI ${GEMINI_VERSION} is not installed at ${GEMINI_BIN} (bash scripts/hosts/install.sh)`;
const why = geminiInstalled ? '' : ` (skipped: ${missing})`;
if (!geminiInstalled && process.env.CI) {
  describe('Gemini CLI host', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const ARGS = { command: 'echo hookgate-e2e-original', description: 'print a test marker' };

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(!geminiInstalled)(`Gemini CLI ${GEMINI_VERSION} through hookgate${why}`, () => {
  if (!geminiInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;
  let token: string;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          strict: { ...rec, modes: ['tool'], on_failure: 'closed' },
          // A short deadline, so the shim gives up on a silent gateway soon.
          quick: { ...rec, modes: ['tool'], on_failure: 'closed', timeout_ms: 1000 },
          granted: {
            ...rec,
            modes: ['tool'],
            on_failure: 'closed',
            grants: { rewrite_tools: ['run_shell_command'] },
          },
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

  async function run(hook: string, base = gw.url) {
    const events = shimEvents(gw.config.tenants.get('acme')!.hooks.get(hook)!, 'gemini', base, HOOKGATE_ARGV);
    const model = await startFakeGemini(ARGS);
    try {
      await runGemini({ settings: geminiSettings(events, `hookgate-${hook}`), modelUrl: model.url, token });
      return model.toolResults.map((r) => JSON.stringify(r));
    } finally {
      await model.close();
    }
  }

  it("a deny: the command never runs, and the model reads the hook's reason", async () => {
    recorder().answer = (m) =>
      m === 'hook.before_tool' ? { action: 'deny_tool', reason: 'no shell for you' } : {};
    const results = await run('strict');
    expect(results).toEqual([expect.stringContaining('Tool execution blocked: no shell for you')]);
    expect(results[0]).not.toContain('Output: hookgate-e2e-original');
    expect(recorder().calls[0]).toMatchObject({
      method: 'hook.before_tool',
      params: { tool: 'run_shell_command' },
    });
  });

  it('the gateway down, fail-closed: blocked (exit 2), the model reads why', async () => {
    const results = await run('strict', `http://127.0.0.1:${await closedPort()}`);
    expect(results).toEqual([expect.stringContaining('hookgate: the policy gateway could not be asked')]);
    expect(results[0]).not.toContain('Output: hookgate-e2e-original');
  });

  for (const [how, said] of MISBEHAVIOURS) {
    it(`a gateway that is ${how}, fail-closed: blocked, the model reads why`, async () => {
      const bad = await startMisbehavingGateway(how);
      try {
        const results = await run('quick', bad.url);
        expect(results).toEqual([expect.stringMatching(said)]);
        expect(results[0]).not.toContain('Output: hookgate-e2e-original');
        expect(bad.allowed).toBe(0);
      } finally {
        await bad.close();
      }
    });
  }

  it('a granted rewrite replaces the arguments; the same rewrite without rewrite_tools runs the original', async () => {
    recorder().answer = (m, p: any) =>
      m === 'hook.before_tool'
        ? { action: 'modify', call: { ...p, arguments: { ...p.arguments, command: 'echo rewritten-e2e' } } }
        : {};
    expect(await run('granted')).toEqual([expect.stringContaining('Output: rewritten-e2e')]);
    const refused = await run('strict');
    expect(refused).toEqual([expect.stringContaining('Output: hookgate-e2e-original')]);
    expect(gw.logs.audits()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dialect: 'gemini', rule: 'rewrite_arguments_not_granted' }),
      ]),
    );
  });
});
