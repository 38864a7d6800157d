import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codexConfigToml } from '../../../src/hosts/codex/setup.js';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { MISBEHAVIOURS, startMisbehavingGateway } from '../misbehaving-gateway.js';
import { startFakeResponses } from './fake-responses.js';
import { CODEX_BIN, CODEX_VERSION, codexInstalled, runCodex } from './run-codex.js';

/**
 * The real Codex CLI (pinned in scripts/hosts/install-codex.sh), `codex exec` against a fake
 * Responses API on 127.0.0.1 that asks for one `exec_command` call, with the config.toml hooks and
 * trust entries `hookgate setup codex` prints running `hookgate hook --host codex` against a
 * gateway on 127.0.0.1. What ran is what the model got back as the function call's output; Codex's
 * own record of each hook run (`hook: PreToolUse Completed|Blocked|Failed`) is on its stderr.
 */
const missing = `Codex CLI ${CODEX_VERSION} is not installed at ${CODEX_BIN} (bash scripts/hosts/install.sh)`;
const why = codexInstalled ? '' : ` (skipped: ${missing})`;
if (!codexInstalled && process.env.CI) {
  describe('Codex CLI host', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(!codexInstalled)(`Codex CLI ${CODEX_VERSION} through hookgate${why}`, () => {
  if (!codexInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;
  let token: string;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          strict: { ...rec, modes: ['tool'], on_failure: 'closed' },
          // A short deadline, so the shim gives up on a silent gateway soon.
          quick: { ...rec, modes: ['tool'], on_failure: 'closed', timeout_ms: 1000 },
          granted: { ...rec, modes: ['tool'], on_failure: 'closed', grants: { rewrite_tools: ['Bash'] } },
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

  async function run(hook: string, opts: { base?: string; tamper?: boolean } = {}) {
    const events = shimEvents(
      gw.config.tenants.get('acme')!.hooks.get(hook)!,
      'codex',
      opts.base ?? gw.url,
      HOOKGATE_ARGV,
    );
    const model = await startFakeResponses('echo hookgate-e2e-original');
    try {
      const r = await runCodex({
        hooksToml: async (file) => {
          const toml = await codexConfigToml(events, file);
          // A hash that is not the definition's: Codex must then skip the hook.
          return opts.tamper ? toml.replace(/sha256:[0-9a-f]{4}/g, 'sha256:0000') : toml;
        },
        modelUrl: model.url,
        token,
      });
      return { ...r, toolResults: model.toolResults };
    } finally {
      await model.close();
    }
  }

  it("a deny: the command never runs, and the model reads the hook's reason", async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no shell for you' });
    const r = await run('strict');
    expect(r.toolResults).toEqual([expect.stringContaining('no shell for you')]);
    expect(r.toolResults[0]).not.toContain('Output:\nhookgate-e2e-original');
    expect(r.stderr).toContain('hook: PreToolUse Blocked');
    expect(recorder().calls[0]).toMatchObject({ method: 'hook.before_tool', params: { tool: 'Bash' } });
  });

  it('no objection: the command runs and Codex records the hook Completed (not Failed)', async () => {
    const r = await run('strict');
    expect(r.toolResults).toEqual([expect.stringContaining('Output:\nhookgate-e2e-original')]);
    expect(r.stderr).toContain('hook: PreToolUse Completed');
    expect(r.stderr).not.toContain('hook: PreToolUse Failed');
  });

  it('the printed trust hash is what makes Codex run the hook: a wrong one, and Codex skips it', async () => {
    recorder().answer = () => ({ action: 'deny_tool', reason: 'no shell for you' });
    const r = await run('strict', { tamper: true });
    expect(recorder().calls).toEqual([]);
    expect(r.toolResults).toEqual([expect.stringContaining('Output:\nhookgate-e2e-original')]);
  });

  it('the gateway down, fail-closed: blocked (exit 2), the model reads why', async () => {
    const r = await run('strict', { base: `http://127.0.0.1:${await closedPort()}` });
    expect(r.toolResults).toEqual([
      expect.stringContaining('hookgate: the policy gateway could not be asked'),
    ]);
    expect(r.toolResults[0]).not.toContain('Output:\nhookgate-e2e-original');
  });

  for (const [how, said] of MISBEHAVIOURS) {
    it(`a gateway that is ${how}, fail-closed: blocked, the model reads why`, async () => {
      const bad = await startMisbehavingGateway(how);
      try {
        const r = await run('quick', { base: bad.url });
        expect(r.toolResults).toEqual([expect.stringMatching(said)]);
        expect(r.toolResults[0]).not.toContain('Output:\nhookgate-e2e-original');
        expect(bad.allowed).toBe(0);
      } finally {
        await bad.close();
      }
    });
  }

  it('a rewrite without rewrite_tools: the original runs, audited with dialect codex', async () => {
    recorder().answer = (_m, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'echo rewritten-e2e' } },
    });
    const r = await run('strict');
    expect(r.toolResults).toEqual([expect.stringContaining('Output:\nhookgate-e2e-original')]);
    expect(gw.logs.audits()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dialect: 'codex', rule: 'rewrite_arguments_not_granted' }),
      ]),
    );
  });

  it('a granted rewrite runs the new command (allow + updatedInput)', async () => {
    recorder().answer = (_m, p: any) => ({
      action: 'modify',
      call: { ...p, arguments: { command: 'echo rewritten-e2e' } },
    });
    const r = await run('granted');
    expect(r.toolResults).toEqual([expect.stringContaining('Output:\nrewritten-e2e')]);
  });
});
