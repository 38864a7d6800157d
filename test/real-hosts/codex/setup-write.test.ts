import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codexTrustHash } from '../../../src/hosts/codex/setup.js';
import { shellJoin } from '../../../src/node/cli/own-command.js';
import { runCli } from '../../helpers/cli.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { startFakeResponses } from './fake-responses.js';
import { CODEX_BIN, CODEX_VERSION, codexInstalled, runCodex } from './run-codex.js';

/**
 * `hookgate setup codex --write` into a config.toml that already has settings of its own and
 * another trusted hook, then the real Codex CLI (`codex exec` against a fake Responses API asking
 * for one `exec_command`): Codex runs hookgate's hook (so the trust entry the merge wrote for the
 * group's new number is right: an untrusted hook is skipped silently), runs the other hook, and
 * still honours the other settings (the model provider, and an environment variable that
 * `shell_environment_policy.set` gives the command).
 */
const missing = `Codex CLI ${CODEX_VERSION} is not installed at ${CODEX_BIN} (bash scripts/hosts/install.sh)`;
const why = codexInstalled ? '' : ` (skipped: ${missing})`;
if (!codexInstalled && process.env.CI) {
  describe('Codex CLI setup --write', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const hooks = { strict: { ...rec, modes: ['tool'], on_failure: 'closed' } };

describe.skipIf(!codexInstalled)(
  `hookgate setup codex --write, then Codex CLI ${CODEX_VERSION}${why}`,
  () => {
    let gw: TestGateway;
    let token: string;
    let dir: string;
    let hookgateConfig: string;

    beforeAll(async () => {
      gw = await startTestGateway({ tenants: { acme: tenantDoc(hooks) } });
      token = await gw.token();
      dir = mkdtempSync(join(tmpdir(), 'hookgate-codex-setup-'));
      hookgateConfig = join(dir, 'hookgate.json');
      writeFileSync(hookgateConfig, JSON.stringify({ tenants: { acme: tenantDoc(hooks) } }));
    });
    afterAll(async () => {
      await gw?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(() => {
      recorder().calls.length = 0;
      recorder().answer = () => ({ action: 'continue' });
    });

    /** The user's own config: an environment variable for commands and a trusted hook of theirs. */
    async function userToml(configFile: string, marker: string): Promise<string> {
      const other = { command: shellJoin(['touch', marker]), deadlineMs: 0, hostTimeoutS: 10 };
      return [
        '[shell_environment_policy]',
        'set = { HOOKGATE_E2E_FROM_CONFIG = "kept" }',
        '',
        "# the user's own hook, trusted",
        '[[hooks.PreToolUse]]',
        'matcher = "Bash"',
        '[[hooks.PreToolUse.hooks]]',
        'type = "command"',
        `command = ${JSON.stringify(other.command)}`,
        'timeout = 10',
        '',
        `[hooks.state.${JSON.stringify(`${configFile}:pre_tool_use:0:0`)}]`,
        `trusted_hash = ${JSON.stringify(await codexTrustHash('pre_tool_use', 'Bash', other))}`,
        '',
      ].join('\n');
    }

    async function run() {
      const marker = join(dir, `other-hook-ran-${Math.random().toString(16).slice(2)}`);
      const model = await startFakeResponses('echo hookgate-e2e-$HOOKGATE_E2E_FROM_CONFIG');
      const writes: Awaited<ReturnType<typeof runCli>>[] = [];
      let before = '';
      try {
        const r = await runCodex({
          hooksToml: (configFile) => userToml(configFile, marker),
          prepare: async (_file, codexHome) => {
            before = readFileSync(join(codexHome, 'config.toml'), 'utf8');
            // First at an address the gateway is not at (as before a move), then at its own, twice:
            // the second replaces the first in place (new command, new hash), the third changes nothing.
            for (const url of ['http://127.0.0.1:9', gw.url, gw.url])
              writes.push(
                await runCli(
                  [
                    ...['setup', 'codex', '--config', hookgateConfig, '--tenant', 'acme', '--hook', 'strict'],
                    ...['--url', url, '--command', shellJoin(HOOKGATE_ARGV), '--write'],
                  ],
                  { cwd: dir, env: { ...process.env, CODEX_HOME: codexHome } },
                ),
              );
          },
          modelUrl: model.url,
          token,
        });
        return { ...r, before, writes, toolResults: model.toolResults, otherHookRan: existsSync(marker) };
      } finally {
        await model.close();
      }
    }

    it('merged: both hooks run, the settings hold; a re-run replaces its own group, a third changes nothing', async () => {
      const r = await run();
      expect(r.writes.map((w) => w.code)).toEqual([0, 0, 0]);
      expect(r.writes[0]!.err).toContain('merged the hooks and their trust entries into');
      expect(r.writes[1]!.err).toContain('merged the hooks and their trust entries into');
      expect(r.writes[2]!.err).toContain('unchanged');
      expect(r.config.startsWith(r.before)).toBe(true);
      expect(r.config).toMatch(/:pre_tool_use:1:0"\]\ntrusted_hash = "sha256:/);
      expect(r.config).not.toContain('127.0.0.1:9/');
      expect(r.config).not.toContain(':pre_tool_use:2:0');
      // hookgate's hook ran (Codex trusted it) and so did the user's.
      expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool', 'hook.after_tool']);
      expect(recorder().calls[0]).toMatchObject({ params: { tool: 'Bash' } });
      expect(r.otherHookRan).toBe(true);
      expect(r.stderr).not.toContain('hook: PreToolUse Failed');
      // The provider setting (the fake model answered) and the command's environment held.
      expect(r.toolResults).toEqual([expect.stringContaining('Output:\nhookgate-e2e-kept')]);
    });

    it("merged: hookgate's deny blocks the command, the model reads the reason", async () => {
      recorder().answer = () => ({ action: 'deny_tool', reason: 'not after setup either' });
      const r = await run();
      expect(r.writes.map((w) => w.code)).toEqual([0, 0, 0]);
      expect(r.stderr).toContain('hook: PreToolUse Blocked');
      expect(r.toolResults).toEqual([expect.stringContaining('not after setup either')]);
      expect(r.toolResults[0]).not.toContain('hookgate-e2e-kept');
    });
  },
);
