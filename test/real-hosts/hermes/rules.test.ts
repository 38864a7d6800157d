import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hermesHooksYaml } from '../../../src/hosts/hermes/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { marker, NO_RM_RF, RM_RF_REASON, ruleAudits, ruleDenial, victim } from '../rules-config.js';
import { startFakeModel } from './fake-openai.js';
import { HERMES_BIN, HERMES_VERSION, HOOKGATE_COMMAND, hermesInstalled, oneShot } from './run-hermes.js';

/**
 * Gateway rules on the real Hermes Agent, headless (`hermes -z --accept-hooks --yolo`, the hooks
 * block `hookgate setup hermes` prints, a fake model asking for one `terminal` call): the tenant's
 * one shell rule blocks `rm -rf` of a directory the test made before the recording hook is asked;
 * an `echo` under the same rule runs.
 */
const missing = `Hermes ${HERMES_VERSION} is not installed at ${HERMES_BIN} (bash scripts/hosts/install.sh)`;
const why = hermesInstalled ? '' : ` (skipped: ${missing})`;
if (!hermesInstalled && process.env.CI) {
  describe('Hermes gateway rules', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

describe.skipIf(!hermesInstalled)(`Hermes ${HERMES_VERSION} headless: gateway rules${why}`, () => {
  if (!hermesInstalled) console.warn(`skipped: ${missing}`);
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

  const run = async (command: string) => {
    const model = await startFakeModel(command);
    try {
      const hooksYaml = hermesHooksYaml(gw.config.tenants.get('acme')!.hooks.get('guard')!, gw.url, {
        command: HOOKGATE_COMMAND,
      });
      const out = await oneShot({ modelUrl: model.url, hooksYaml, token: await gw.token() });
      return { ...out, toolResults: model.toolResults };
    } finally {
      await model.close();
    }
  };

  it("rm -rf: blocked by the tenant rule, the directory stays, the model reads the rule's reason, the hook is never asked", async () => {
    const v = victim();
    try {
      const before = gw.logs.audits().length;
      const r = await run(`rm -rf ${v.dir}`);
      expect(r.toolResults, r.output.slice(-3000)).toHaveLength(1);
      expect(r.toolResults[0]).toContain(RM_RF_REASON);
      expect(v.intact()).toBe(true);
      expect(recorder().calls.filter((c) => c.method === 'hook.before_tool')).toEqual([]);
      expect(ruleAudits(gw, before)).toEqual([
        expect.objectContaining({ ...ruleDenial('hermes'), tool: 'terminal' }),
      ]);
    } finally {
      v.remove();
    }
  });

  it('positive control: an echo under the same rule runs, and the hook is asked', async () => {
    const m = marker();
    const before = gw.logs.audits().length;
    const r = await run(`echo rules-${m}`);
    expect(r.toolResults, r.output.slice(-3000)).toHaveLength(1);
    expect(r.toolResults[0]).toContain(`rules-${m}`);
    expect(recorder().calls.map((c) => c.method)).toContain('hook.before_tool');
    expect(ruleAudits(gw, before)).toEqual([]);
  });
});
