import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codexConfigToml } from '../../../src/hosts/codex/setup.js';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { marker, NO_RM_RF, RM_RF_REASON, ruleAudits, ruleDenial, victim } from '../rules-config.js';
import { startFakeResponses } from './fake-responses.js';
import { CODEX_BIN, CODEX_VERSION, codexInstalled, runCodex } from './run-codex.js';

/**
 * Gateway rules on the real Codex CLI (`codex exec`, the config.toml hooks and trust entries
 * `hookgate setup codex` prints, a fake Responses API asking for one shell call): the tenant's
 * one shell rule blocks `rm -rf` of a directory the test made before the recording hook is asked;
 * an `echo` under the same rule runs.
 */
const missing = `Codex CLI ${CODEX_VERSION} is not installed at ${CODEX_BIN} (bash scripts/hosts/install.sh)`;
const why = codexInstalled ? '' : ` (skipped: ${missing})`;
if (!codexInstalled && process.env.CI) {
  describe('Codex CLI gateway rules', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

describe.skipIf(!codexInstalled)(`Codex CLI ${CODEX_VERSION}: gateway rules${why}`, () => {
  if (!codexInstalled) console.warn(`skipped: ${missing}`);
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
      'codex',
      gw.url,
      HOOKGATE_ARGV,
    );
    const model = await startFakeResponses(command);
    try {
      const r = await runCodex({
        hooksToml: (file) => codexConfigToml(events, file),
        modelUrl: model.url,
        token: await gw.token(),
      });
      return { ...r, toolResults: model.toolResults };
    } finally {
      await model.close();
    }
  }

  it("rm -rf: blocked by the tenant rule, the directory stays, the model reads the rule's reason, the hook is never asked", async () => {
    const v = victim();
    try {
      const before = gw.logs.audits().length;
      const r = await run(`rm -rf ${v.dir}`);
      expect(r.toolResults, r.stderr.slice(-3000)).toEqual([expect.stringContaining(RM_RF_REASON)]);
      expect(r.stderr).toContain('hook: PreToolUse Blocked');
      expect(v.intact()).toBe(true);
      expect(recorder().calls).toEqual([]);
      expect(ruleAudits(gw, before)).toEqual([
        expect.objectContaining({ ...ruleDenial('codex'), tool: 'Bash' }),
      ]);
    } finally {
      v.remove();
    }
  });

  it('positive control: an echo under the same rule runs, and the hook is asked', async () => {
    const m = marker();
    const before = gw.logs.audits().length;
    const r = await run(`echo rules-${m}`);
    expect(r.toolResults, r.stderr.slice(-3000)).toEqual([expect.stringContaining(`Output:\nrules-${m}`)]);
    expect(recorder().calls.map((c) => c.method)).toContain('hook.before_tool');
    expect(ruleAudits(gw, before)).toEqual([]);
  });
});
