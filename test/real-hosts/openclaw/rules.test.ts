import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { marker, NO_RM_RF, RM_RF_REASON, ruleAudits, ruleDenial, victim } from '../rules-config.js';
import { OPENCLAW_ENTRY, OPENCLAW_VERSION, openclawInstalled, runOpenClaw } from './run-openclaw.js';

/**
 * Gateway rules on the real OpenClaw (headless, the hookgate plugin from integrations/openclaw, a
 * fake model asking for one `exec`): the tenant's one shell rule blocks `rm -rf` of a directory the
 * test made before the recording hook is asked; an `echo` under the same rule runs.
 */
const missing = `OpenClaw ${OPENCLAW_VERSION} is not installed at ${OPENCLAW_ENTRY} (bash scripts/hosts/install.sh)`;
const why = openclawInstalled ? '' : ` (skipped: ${missing})`;
if (!openclawInstalled && process.env.CI) {
  describe('OpenClaw gateway rules', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const TOKEN_ENV = 'HOOKGATE_TOKEN';

describe.skipIf(!openclawInstalled)(`OpenClaw ${OPENCLAW_VERSION}: gateway rules${why}`, () => {
  if (!openclawInstalled) console.warn(`skipped: ${missing}`);
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

  const run = async (command: string) =>
    runOpenClaw({
      command,
      plugin: { url: `${gw.url}/v1/tenants/acme/hooks/guard/openclaw`, tokenEnv: TOKEN_ENV, timeoutMs: 5000 },
      env: { [TOKEN_ENV]: await gw.token() },
    });
  const diag = (r: { exitCode: number | null; stderr: string; stdout: string }) =>
    `exit ${r.exitCode}\nstdout: ${r.stdout.slice(0, 1500)}\nstderr: ${r.stderr.slice(-3000)}`;

  it("rm -rf: blocked by the tenant rule, the directory stays, the model reads the rule's reason, the hook is never asked", async () => {
    const v = victim();
    try {
      const before = gw.logs.audits().length;
      const r = await run(`rm -rf ${v.dir}`);
      expect(r.toolMessages, diag(r)).toHaveLength(1);
      expect(r.toolMessages[0]).toContain(RM_RF_REASON);
      expect(v.intact()).toBe(true);
      expect(recorder().calls.filter((c) => c.method === 'hook.before_tool')).toEqual([]);
      expect(ruleAudits(gw, before)).toEqual([
        expect.objectContaining({ ...ruleDenial('openclaw'), tool: 'exec' }),
      ]);
    } finally {
      v.remove();
    }
  });

  it('positive control: an echo under the same rule runs, and the hook is asked', async () => {
    const m = marker();
    const before = gw.logs.audits().length;
    const r = await run(`echo rules-$((40+2))-${m}`);
    expect(r.toolMessages, diag(r)).toHaveLength(1);
    expect(r.toolMessages[0]).toContain(`rules-42-${m}`);
    expect(recorder().calls.map((c) => c.method)).toContain('hook.before_tool');
    expect(ruleAudits(gw, before)).toEqual([]);
  });
});
