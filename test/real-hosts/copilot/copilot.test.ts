import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { copilotHooksJson } from '../../../src/hosts/copilot/setup.js';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { startFakeModel } from '../hermes/fake-openai.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { MISBEHAVIOURS, startMisbehavingGateway } from '../misbehaving-gateway.js';
import { COPILOT_BIN, COPILOT_VERSION, copilotInstalled, runCopilot } from './run-copilot.js';

/**
 * The real Copilot CLI (pinned in scripts/hosts/install-copilot.sh) headless and offline against a
 * fake Chat Completions model on 127.0.0.1 that asks for one `bash` call, with the user-level hooks
 * file `hookgate setup copilot` prints running `hookgate hook --host copilot` against a gateway on
 * 127.0.0.1. What ran is what the model got back as the tool result, and what the command left.
 */
const missing = `Copilot CLI ${COPILOT_VERSION} is not installed at ${COPILOT_BIN} (bash scripts/hosts/install.sh)`;
const why = copilotInstalled ? '' : ` (skipped: ${missing})`;
if (!copilotInstalled && process.env.CI) {
  describe('Copilot CLI host', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

/** A port nothing listens on: the gateway is down. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(!copilotInstalled)(`Copilot CLI ${COPILOT_VERSION} through hookgate${why}`, () => {
  if (!copilotInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;
  let token: string;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          strict: { ...rec, modes: ['tool', 'approve'], on_failure: 'closed' },
          // A short deadline, so the shim gives up on a silent gateway soon.
          quick: { ...rec, modes: ['tool'], on_failure: 'closed', timeout_ms: 1000 },
          granted: {
            ...rec,
            modes: ['tool', 'approve'],
            on_failure: 'closed',
            grants: { rewrite_tools: ['bash'], approve_tools: ['bash'] },
          },
        }),
      },
    });
    token = await gw.token();
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = (m) => (m === 'hook.approve_tool' ? {} : { action: 'continue' });
  });

  /** What `hookgate setup copilot` prints for the hook, against `base`. */
  const hooksFor = (hook: string, base = gw.url) =>
    copilotHooksJson(
      shimEvents(gw.config.tenants.get('acme')!.hooks.get(hook)!, 'copilot', base, HOOKGATE_ARGV),
    );

  async function run(hook: string, command: string, base?: string) {
    const model = await startFakeModel({ name: 'bash', arguments: { command } });
    try {
      const r = await runCopilot({ hooksFile: hooksFor(hook, base), modelUrl: model.url, token });
      return { ...r, toolResults: model.toolResults };
    } finally {
      await model.close();
    }
  }

  it("a deny: the command never runs, and the model reads the hook's reason", async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no shell for you' });
    const r = await run('strict', 'echo hookgate-e2e-deny');
    expect(r.toolResults).toEqual([expect.stringContaining('no shell for you')]);
    expect(r.toolResults[0]).not.toContain('hookgate-e2e-deny\n');
    expect(recorder().calls[0]).toMatchObject({ method: 'hook.before_tool', params: { tool: 'bash' } });
  });

  it('the gateway down, fail-closed: blocked with a reason the model reads (not "exited with code 2")', async () => {
    const r = await run('strict', 'echo hookgate-e2e-down', `http://127.0.0.1:${await closedPort()}`);
    expect(r.toolResults).toEqual([
      expect.stringContaining('hookgate: the policy gateway could not be asked'),
    ]);
    expect(r.toolResults[0]).not.toContain('hookgate-e2e-down\n');
  });

  for (const [how, said] of MISBEHAVIOURS) {
    it(`a gateway that is ${how}, fail-closed: blocked with a JSON deny, the model reads why`, async () => {
      const bad = await startMisbehavingGateway(how);
      try {
        const r = await run('quick', 'echo hookgate-e2e-bad', bad.url);
        expect(r.toolResults).toEqual([expect.stringMatching(said)]);
        expect(r.toolResults[0]).not.toContain('hookgate-e2e-bad\n');
        expect(bad.allowed).toBe(0);
      } finally {
        await bad.close();
      }
    });
  }

  it('a rewrite without rewrite_tools: the original runs, audited with dialect copilot', async () => {
    recorder().answer = (m, p: any) =>
      m === 'hook.before_tool'
        ? { action: 'modify', call: { ...p, arguments: { command: 'echo rewritten-e2e' } } }
        : {};
    const r = await run('strict', 'echo hookgate-e2e-original');
    expect(r.toolResults).toEqual([expect.stringContaining('hookgate-e2e-original')]);
    expect(gw.logs.audits()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dialect: 'copilot', rule: 'rewrite_arguments_not_granted' }),
      ]),
    );
  });

  it('a granted rewrite runs the rewritten command', async () => {
    recorder().answer = (m, p: any) =>
      m === 'hook.before_tool'
        ? { action: 'modify', call: { ...p, arguments: { command: 'echo rewritten-e2e' } } }
        : {};
    const r = await run('granted', 'echo hookgate-e2e-original');
    expect(r.toolResults).toEqual([expect.stringContaining('rewritten-e2e')]);
  });

  it('a command that writes runs only with approve_tools behind the approval (allow skips Copilot’s own)', async () => {
    recorder().answer = (m) => (m === 'hook.approve_tool' ? { approved: true } : { action: 'continue' });
    const granted = await run('granted', 'touch approved.txt && echo hookgate-e2e-wrote');
    expect(granted.files).toContain('approved.txt');
    // The same approval from a hook without approve_tools is no verdict: Copilot refuses by itself.
    const refused = await run('strict', 'touch approved.txt && echo hookgate-e2e-wrote');
    expect(refused.files).not.toContain('approved.txt');
    expect(gw.logs.audits()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dialect: 'copilot', rule: 'approve_tool_not_granted' }),
      ]),
    );
  });
});
