import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picoclawSetup } from '../../../src/hosts/picoclaw/setup.node.js';
import { REPO, startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import {
  marker,
  NO_RM_RF,
  RM_RF_REASON,
  ruleAudits,
  ruleDenial,
  type Victim,
  victim,
} from '../rules-config.js';
import {
  type AgentRun,
  bridgeHook,
  FakeModel,
  PicoClawHome,
  picoclawConfig,
  picoclawMissing,
  type ProcessHook,
  type ToolCallScript,
} from './harness.js';

/**
 * Gateway rules on the real PicoClaw, one headless turn per wiring: its process hook is
 * `hookgate bridge` given the hook's WebSocket URL and the token in the hook's own env (as the
 * process-hooks suite wires its weather hook), the same bridge over HTTP POST (`--transport
 * http`), or the entry `hookgate setup picoclaw` prints (the token from PicoClaw's environment). The model asks for two `exec` calls in one batch: `rm -rf`
 * of a directory in the workspace, then a harmless `echo`. The tenant's one shell rule denies the
 * first before the recording hook is asked; the second runs. (Without the rule PicoClaw's own
 * exec guard also stops `rm -rf`, after asking the hook: "Command blocked by safety guard"; so what
 * proves the rule is the hook's reason in the result and the hook never being asked.)
 */

const missing = picoclawMissing();
const why = missing ? ` (skipped: ${missing})` : '';
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };

/** The one process hook of a `setup picoclaw` block, as the harness's config builder takes it. */
function setupEntry(setup: ReturnType<typeof picoclawSetup>): ProcessHook {
  const processes = (setup.config.hooks as { processes: Record<string, Record<string, unknown>> }).processes;
  const [entry] = Object.values(processes);
  return {
    command: entry.command as string[],
    intercept: entry.intercept as string[],
    priority: entry.priority as number,
  };
}

const WIRINGS = {
  bridge: 'hookgate bridge (WebSocket, the token in the hook env)',
  http: 'hookgate bridge --transport http',
  setup: 'the entry `setup picoclaw` prints (the token from PicoClaw’s env)',
} as const;
type Wiring = keyof typeof WIRINGS;

interface Turn {
  run: AgentRun;
  model: FakeModel;
  victim: Victim;
  echo: string;
  /** What the recording hook was asked during this turn. */
  calls: { method: string; params: any }[];
  audits: Record<string, any>[];
}

describe.skipIf(missing)(`real PicoClaw: a gateway rule denies rm -rf without asking the hook${why}`, () => {
  let gw: TestGateway;
  const homes: PicoClawHome[] = [];
  const turns: Record<Wiring, Turn> = {} as never;

  async function turn(wiring: Wiring): Promise<Turn> {
    const token = await gw.token({ hooks: ['guard'] });
    const echo = `picoclaw-echo-${marker()}`;
    // The calls are scripted once the workspace (and so the directory to remove) exists.
    const calls: ToolCallScript[] = [];
    const model = new FakeModel(calls);
    await model.start();
    const hook =
      wiring !== 'setup'
        ? bridgeHook({
            url: `${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/guard/ws`,
            token,
            intercept: ['before_tool', 'approve_tool'],
            flags: wiring === 'http' ? ['--transport', 'http'] : [],
          })
        : setupEntry(
            picoclawSetup(gw.config.tenants.get('acme')!.hooks.get('guard')!, gw.url, {
              command: [process.execPath, join(REPO, 'bin', 'hookgate.js')],
            }),
          );
    let v: Victim | undefined;
    const home = new PicoClawHome((dir) => {
      v = victim(join(dir, 'workspace'));
      calls.push(
        { name: 'exec', arguments: { action: 'run', command: `rm -rf ${v.dir}` } },
        { name: 'exec', arguments: { action: 'run', command: `echo ${echo}` } },
      );
      return picoclawConfig(dir, model.url, { guard: hook });
    });
    homes.push(home);
    recorder().calls.length = 0;
    const before = gw.logs.audits().length;
    try {
      // The setup entry has no token: the bridge reads HOOKGATE_TOKEN from PicoClaw's environment.
      const run = await home.run('Run the commands.', `hookgate-rules-${wiring}`, 60_000, {
        HOOKGATE_TOKEN: token,
      });
      return { run, model, victim: v!, echo, calls: [...recorder().calls], audits: ruleAudits(gw, before) };
    } finally {
      await model.close();
    }
  }

  beforeAll(async () => {
    recorder().calls.length = 0;
    recorder().answer = (method) =>
      method === 'hook.approve_tool' ? { approved: true } : { action: 'continue' };
    gw = await startTestGateway({
      tenants: {
        acme: { ...tenantDoc({ guard: { ...rec, modes: ['tool', 'approve'] } }), rules: [NO_RM_RF] },
      },
    });
    for (const wiring of Object.keys(WIRINGS) as Wiring[]) turns[wiring] = await turn(wiring);
  });

  afterAll(async () => {
    for (const h of homes) h.remove();
    await gw?.close();
  });

  for (const [wiring, label] of Object.entries(WIRINGS) as [Wiring, string][]) {
    describe(label, () => {
      it('the turn ends normally with both tool results', () => {
        const { run, model } = turns[wiring];
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
        expect(model.toolResults.size).toBe(2);
      });

      it("rm -rf: denied with the rule's reason, the directory stays, the hook is never asked", () => {
        const t = turns[wiring];
        expect(t.model.result(0)).toBe(`Tool execution denied by hook: ${RM_RF_REASON}`);
        expect(t.victim.intact()).toBe(true);
        const asked = t.calls.filter((c) => String(c.params?.arguments?.command ?? '').includes('rm -rf'));
        expect(asked).toEqual([]);
        expect(t.audits).toEqual([expect.objectContaining({ ...ruleDenial('picoclaw'), tool: 'exec' })]);
      });

      it('positive control: the echo under the same rule ran, and the hook was asked about it', () => {
        const t = turns[wiring];
        expect(t.model.result(1)).toContain(t.echo);
        expect(
          t.calls.filter((c) => c.method === 'hook.before_tool').map((c) => c.params.arguments.command),
        ).toEqual([`echo ${t.echo}`]);
      });
    });
  }
});
