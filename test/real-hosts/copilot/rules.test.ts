import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { copilotHooksJson } from '../../../src/hosts/copilot/setup.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { startFakeModel } from '../hermes/fake-openai.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { NO_RM_RF, RM_RF_REASON, ruleAudits, ruleDenial, victim } from '../rules-config.js';
import { COPILOT_BIN, COPILOT_VERSION, copilotInstalled, runCopilot } from './run-copilot.js';

/**
 * Gateway rules on the real Copilot CLI (headless and offline, the hooks file `hookgate setup
 * copilot` prints, a fake model asking for one `bash` call). The recording hook approves every
 * approval and has `bash` in approve_tools, so without the rule Copilot would run `rm -rf`: the
 * tenant's one shell rule denies it before the hook is asked, and `rm -r` (not -rf) under the same
 * rule runs and removes its directory.
 */
const missing = `Copilot CLI ${COPILOT_VERSION} is not installed at ${COPILOT_BIN} (bash scripts/hosts/install.sh)`;
const why = copilotInstalled ? '' : ` (skipped: ${missing})`;
if (!copilotInstalled && process.env.CI) {
  describe('Copilot CLI gateway rules', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

describe.skipIf(!copilotInstalled)(`Copilot CLI ${COPILOT_VERSION}: gateway rules${why}`, () => {
  if (!copilotInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: {
        acme: {
          ...tenantDoc({
            guard: { ...rec, modes: ['tool', 'approve'], grants: { approve_tools: ['bash'] } },
          }),
          rules: [NO_RM_RF],
        },
      },
    });
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = (m) => (m === 'hook.approve_tool' ? { approved: true } : { action: 'continue' });
  });

  async function run(command: string) {
    const hooksFile = copilotHooksJson(
      shimEvents(gw.config.tenants.get('acme')!.hooks.get('guard')!, 'copilot', gw.url, HOOKGATE_ARGV),
    );
    const model = await startFakeModel({ name: 'bash', arguments: { command } });
    try {
      const r = await runCopilot({ hooksFile, modelUrl: model.url, token: await gw.token() });
      return { ...r, toolResults: model.toolResults };
    } finally {
      await model.close();
    }
  }
  const asked = (dir: string) =>
    recorder().calls.filter((c) => String(c.params?.arguments?.command ?? '').includes(dir));

  it("rm -rf: denied by the tenant rule, the directory stays, the model reads the rule's reason, the hook is never asked", async () => {
    const v = victim();
    try {
      const before = gw.logs.audits().length;
      const r = await run(`rm -rf ${v.dir}`);
      expect(r.toolResults, r.stderr.slice(-3000)).toEqual([expect.stringContaining(RM_RF_REASON)]);
      expect(v.intact()).toBe(true);
      expect(asked(v.dir).map((c) => c.method)).not.toContain('hook.before_tool');
      expect(asked(v.dir).map((c) => c.method)).not.toContain('hook.approve_tool');
      expect(ruleAudits(gw, before)).toEqual([
        expect.objectContaining({ ...ruleDenial('copilot'), tool: 'bash' }),
      ]);
    } finally {
      v.remove();
    }
  });

  it('positive control: rm -r (not -rf) under the same rule runs (the hook is asked and approves) and removes its directory', async () => {
    const v = victim();
    try {
      const before = gw.logs.audits().length;
      const r = await run(`rm -r ${v.dir}`);
      expect(r.toolResults, r.stderr.slice(-3000)).toHaveLength(1);
      expect(v.intact()).toBe(false);
      expect(asked(v.dir).map((c) => c.method)).toEqual(
        expect.arrayContaining(['hook.before_tool', 'hook.approve_tool']),
      );
      expect(ruleAudits(gw, before)).toEqual([]);
    } finally {
      v.remove();
    }
  });
});
