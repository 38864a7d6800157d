import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codexConfigToml } from '../../../src/hosts/codex/setup.js';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { startFakeResponses } from './fake-responses.js';
import { runCodexAppServer } from './run-app-server.js';
import { CODEX_BIN, CODEX_VERSION, codexInstalled } from './run-codex.js';

/**
 * Codex's PermissionRequest on the real binary, headless: `codex app-server` (this suite is its
 * client) with approval `on-request`, the sandbox off (danger-full-access: this machine's bwrap
 * cannot run Codex's sandbox helper from a temporary CODEX_HOME) and execpolicy rules that make
 * Codex ask before `echo` and `touch` (`decision = "prompt"`). Codex runs the PermissionRequest
 * hooks first; with no verdict from them it asks the client, which refuses here. The hooks are the
 * `[[hooks.PermissionRequest]]` group and trust entry `setup codex` prints for an approve-mode hook,
 * running `hookgate hook --host codex`. (`codex exec` cannot show this: it runs with approval
 * `never` whatever the config says, so PermissionRequest never fires there.)
 */
const missing = `Codex CLI ${CODEX_VERSION} is not installed at ${CODEX_BIN} (bash scripts/hosts/install.sh)`;
const why = codexInstalled ? '' : ` (skipped: ${missing})`;
if (!codexInstalled && process.env.CI) {
  describe('Codex CLI PermissionRequest', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const RULES = [
  'prefix_rule(pattern = ["echo"], decision = "prompt")',
  'prefix_rule(pattern = ["touch"], decision = "prompt")',
  '',
].join('\n');

describe.skipIf(!codexInstalled)(
  `Codex CLI ${CODEX_VERSION} app-server: PermissionRequest through hookgate${why}`,
  () => {
    let gw: TestGateway;
    let token: string;
    let dir: string;

    beforeAll(async () => {
      gw = await startTestGateway({
        tenants: {
          acme: tenantDoc({
            approver: {
              ...rec,
              modes: ['approve'],
              on_failure: 'open',
              grants: { approve_tools: [{ tool: 'Bash', when: 'args.command.startsWith("echo")' }] },
            },
          }),
        },
      });
      token = await gw.token();
      dir = mkdtempSync(join(tmpdir(), 'hookgate-codex-approve-'));
    });
    afterAll(async () => {
      await gw?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(() => {
      recorder().calls.length = 0;
      // The hook approves everything: the grant's condition is what narrows it.
      recorder().answer = () => ({ approved: true });
    });

    async function run(cmd: string, opts: { hooks?: boolean } = {}) {
      const events = shimEvents(
        gw.config.tenants.get('acme')!.hooks.get('approver')!,
        'codex',
        gw.url,
        HOOKGATE_ARGV,
      );
      const model = await startFakeResponses(cmd);
      try {
        const r = await runCodexAppServer({
          hooksToml: async (file) => (opts.hooks === false ? '' : codexConfigToml(events, file)),
          rules: RULES,
          modelUrl: model.url,
          token,
          approvalPolicy: 'on-request',
          sandbox: 'danger-full-access',
        });
        return { ...r, toolResults: model.toolResults };
      } finally {
        await model.close();
      }
    }

    it('an approval within approve_tools (Bash, an echo): Codex runs the command without asking', async () => {
      const r = await run('echo hookgate-e2e-approved');
      expect(recorder().calls).toEqual([
        expect.objectContaining({
          method: 'hook.approve_tool',
          params: expect.objectContaining({
            tool: 'Bash',
            arguments: { command: 'echo hookgate-e2e-approved' },
          }),
        }),
      ]);
      expect(r.hookRuns).toContainEqual({ eventName: 'permissionRequest', status: 'completed' });
      expect(r.approvalRequests).toEqual([]);
      expect(r.commands).toEqual([expect.objectContaining({ exitCode: 0, status: 'completed' })]);
      expect(r.toolResults).toEqual([expect.stringContaining('Output:\nhookgate-e2e-approved')]);
    });

    it('the same approval for a command the condition leaves out: no verdict, Codex asks, refused, not run', async () => {
      const marker = join(dir, 'touched-without-approval');
      const r = await run(`touch ${marker}`);
      expect(recorder().calls.map((c) => c.method)).toEqual(['hook.approve_tool']);
      expect(r.approvalRequests).toEqual([
        expect.objectContaining({
          method: 'item/commandExecution/requestApproval',
          params: expect.objectContaining({ command: expect.stringContaining(`touch ${marker}`) }),
        }),
      ]);
      expect(existsSync(marker)).toBe(false);
      expect(r.commands.filter((c) => c.exitCode === 0)).toEqual([]);
      expect(gw.logs.audits()).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ dialect: 'codex', rule: 'approve_tool_not_granted' }),
        ]),
      );
    });

    it("the same echo without hookgate's hook: Codex asks (the rule makes it), refused, not run", async () => {
      const r = await run('echo hookgate-e2e-approved', { hooks: false });
      expect(recorder().calls).toEqual([]);
      expect(r.approvalRequests).toEqual([
        expect.objectContaining({
          method: 'item/commandExecution/requestApproval',
          params: expect.objectContaining({ command: expect.stringContaining('echo hookgate-e2e-approved') }),
        }),
      ]);
      expect(r.toolResults.join('\n')).not.toContain('Output:\nhookgate-e2e-approved');
    });

    for (const [what, answer, said] of [
      ['approved: false', { approved: false, reason: 'not this one' }, 'not this one'],
      // An approve_tool answer without `approved` is a denial (as PicoClaw reads it).
      ['an answer without approved', {}, 'denied by hook'],
    ] as const)
      it(`a hook's refusal (${what}): Codex denies without asking, the command does not run`, async () => {
        recorder().answer = () => answer;
        const marker = join(dir, `touched-after-${what.replaceAll(' ', '-')}`);
        const r = await run(`touch ${marker}`);
        expect(r.approvalRequests).toEqual([]);
        expect(r.hookRuns).toContainEqual({ eventName: 'permissionRequest', status: 'blocked' });
        expect(existsSync(marker)).toBe(false);
        expect(r.commands.filter((c) => c.exitCode === 0)).toEqual([]);
        expect(r.toolResults).toEqual([expect.stringContaining(said)]);
      });
  },
);
