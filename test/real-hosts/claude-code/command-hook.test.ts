import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../../src/node/cli/own-command.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { CLAUDE_BIN, CLAUDE_CODE_VERSION, claudeInstalled, cleanup, runClaude } from './run-claude.js';

/**
 * The real Claude Code with a `"type": "command"` PreToolUse hook running `hookgate hook --host
 * claude-code-command --fail-closed` (the Claude Code route, reached by the shim), against a gateway
 * on 127.0.0.1 and against no gateway at all.
 */
const missing = `Claude Code ${CLAUDE_CODE_VERSION} is not installed at ${CLAUDE_BIN} (bash scripts/hosts/install.sh)`;
const why = claudeInstalled ? '' : ` (skipped: ${missing})`;
if (!claudeInstalled && process.env.CI) {
  describe('Claude Code host (command hooks)', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const ECHO = 'Bash(echo *)';

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(!claudeInstalled)(
  `Claude Code ${CLAUDE_CODE_VERSION} command hooks through hookgate${why}`,
  () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startTestGateway({
        tenants: { acme: tenantDoc({ strict: { ...rec, modes: ['tool'], on_failure: 'closed' } }) },
      });
    });
    afterAll(() => gw?.close());
    beforeEach(() => {
      recorder().calls.length = 0;
      recorder().answer = () => ({ action: 'continue' });
    });

    const hooksFor = (base: string) => ({
      PreToolUse: [
        {
          hooks: [
            {
              type: 'command',
              command: shellJoin([
                ...HOOKGATE_ARGV,
                'hook',
                '--host',
                'claude-code-command',
                '--url',
                `${base}/v1/tenants/acme/hooks/strict`,
                '--timeout-ms',
                '10000',
                '--fail-closed',
              ]),
              timeout: 15,
            },
          ],
        },
      ],
    });

    it("a deny: the command does not run, the model gets the hook's reason", async () => {
      recorder().answer = () => ({ action: 'deny_tool', reason: 'E2E-CMD-DENY' });
      const run = await runClaude({
        command: 'echo original-cmd',
        hooks: hooksFor(gw.url),
        token: await gw.token(),
        allowedTools: ECHO,
      });
      try {
        expect(run.toolResults).toHaveLength(1);
        expect(run.toolResults[0].isError).toBe(true);
        expect(run.toolResults[0].content).toContain('E2E-CMD-DENY');
      } finally {
        cleanup(run);
      }
    });

    it('the gateway down, fail-closed: exit 2 blocks, the model reads why (the command was pre-approved)', async () => {
      const run = await runClaude({
        command: 'echo original-cmd',
        hooks: hooksFor(`http://127.0.0.1:${await closedPort()}`),
        token: await gw.token(),
        allowedTools: ECHO,
      });
      try {
        expect(run.toolResults).toHaveLength(1);
        expect(run.toolResults[0].isError).toBe(true);
        expect(run.toolResults[0].content).toContain('hookgate: the policy gateway could not be asked');
      } finally {
        cleanup(run);
      }
    });
  },
);
