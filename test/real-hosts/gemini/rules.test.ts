import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { geminiSettings } from '../../../src/hosts/gemini/setup.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { marker, NO_RM_RF, RM_RF_REASON, ruleAudits, ruleDenial, victim } from '../rules-config.js';
import { startFakeGemini } from './fake-gemini.js';
import { GEMINI_BIN, GEMINI_VERSION, geminiInstalled, runGemini } from './run-gemini.js';

/**
 * Gateway rules on the real Gemini CLI (headless, `--approval-mode yolo`, the settings.json hooks
 * `hookgate setup gemini` prints, a fake Gemini API asking for one `run_shell_command`): the
 * tenant's one shell rule blocks `rm -rf` of a directory the test made before the recording hook
 * is asked; an `echo` under the same rule runs.
 */
const missing = `Gemini CLI ${GEMINI_VERSION} is not installed at ${GEMINI_BIN} (bash scripts/hosts/install.sh)`;
const why = geminiInstalled ? '' : ` (skipped: ${missing})`;
if (!geminiInstalled && process.env.CI) {
  describe('Gemini CLI gateway rules', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

describe.skipIf(!geminiInstalled)(`Gemini CLI ${GEMINI_VERSION}: gateway rules${why}`, () => {
  if (!geminiInstalled) console.warn(`skipped: ${missing}`);
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: { acme: { ...tenantDoc({ guard: { ...rec, modes: ['tool'] } }), rules: [NO_RM_RF] } },
    });
  });
  afterAll(() => gw?.close());
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = () => ({ action: 'continue' });
  });

  async function run(command: string) {
    const events = shimEvents(
      gw.config.tenants.get('acme')!.hooks.get('guard')!,
      'gemini',
      gw.url,
      HOOKGATE_ARGV,
    );
    const model = await startFakeGemini({ command, description: 'a hookgate rules test' });
    try {
      await runGemini({
        settings: geminiSettings(events, 'hookgate-guard'),
        modelUrl: model.url,
        token: await gw.token(),
      });
      return model.toolResults.map((r) => JSON.stringify(r));
    } finally {
      await model.close();
    }
  }

  it("rm -rf: blocked by the tenant rule, the directory stays, the model reads the rule's reason, the hook is never asked", async () => {
    const v = victim();
    try {
      const before = gw.logs.audits().length;
      const results = await run(`rm -rf ${v.dir}`);
      expect(results).toEqual([expect.stringContaining(`Tool execution blocked: ${RM_RF_REASON}`)]);
      expect(v.intact()).toBe(true);
      expect(recorder().calls.filter((c) => c.method === 'hook.before_tool')).toEqual([]);
      expect(ruleAudits(gw, before)).toEqual([
        expect.objectContaining({ ...ruleDenial('gemini'), tool: 'run_shell_command' }),
      ]);
    } finally {
      v.remove();
    }
  });

  it('positive control: an echo under the same rule runs, and the hook is asked', async () => {
    const m = marker();
    const before = gw.logs.audits().length;
    const results = await run(`echo rules-${m}`);
    expect(results).toEqual([expect.stringContaining(`Output: rules-${m}`)]);
    expect(recorder().calls.map((c) => c.method)).toContain('hook.before_tool');
    expect(ruleAudits(gw, before)).toEqual([]);
  });
});
