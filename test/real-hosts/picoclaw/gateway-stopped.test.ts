import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compileConfig } from '../../../src/config/compile.js';
import { signDevToken } from '../../../src/node/token.js';
import { tenantDoc } from '../../helpers/gateway.js';
import {
  type BridgeHookOptions,
  bridgeHook,
  FakeModel,
  GatewayProcess,
  PicoClawHome,
  picoclawConfig,
  picoclawMissing,
  until,
} from './harness.js';

/**
 * The gateway is SIGKILLed while the real PicoClaw waits on a hook call. The bridge must give
 * PicoClaw its failure answer at once (under 2 s from the kill to the model getting the tool result;
 * PicoClaw's own interceptor deadline is 5 s), by its
 * --on-failure mode, approvals always denied, and the turn must end normally.
 */

const missing = picoclawMissing();

describe.skipIf(missing)(
  `real PicoClaw: the gateway stopped mid-turn${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let dir: string;
    let token: string;
    let port: number;
    let gateway: GatewayProcess | undefined;
    let home: PicoClawHome | undefined;
    let model: FakeModel | undefined;
    const mark = () => join(dir, 'stalled');

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'hookgate-stopped-'));
      port = 20_000 + Math.floor(Math.random() * 20_000);
      const doc = {
        server: { port, log_level: 'info' },
        tenants: {
          acme: tenantDoc({
            stall: {
              backend: { type: 'module', module: join(import.meta.dirname, 'stall-hook.ts') },
              modes: ['tool', 'approve'],
              tools: [],
            },
          }),
        },
      };
      writeFileSync(join(dir, 'hookgate.json'), JSON.stringify(doc));
      token = await signDevToken(compileConfig(doc, (r) => r).tenants.get('acme')!, {
        hooks: ['stall'],
        ttlSeconds: 600,
      });
      return () => rmSync(dir, { recursive: true, force: true });
    });

    afterEach(async () => {
      gateway?.kill();
      home?.remove();
      await model?.close();
      rmSync(mark(), { force: true });
    });

    /** One turn: exec is asked for, the hook stalls on it, the gateway is killed, the turn finishes. */
    async function turnWithGatewayKilled(hooks: Record<string, Omit<BridgeHookOptions, 'url' | 'token'>>) {
      model = new FakeModel([
        { name: 'exec', arguments: { action: 'run', command: 'touch exec-ran && echo ran' } },
      ]);
      await model.start();
      gateway = new GatewayProcess(join(dir, 'hookgate.json'), { HOOKGATE_TEST_STALL_MARK: mark() });
      await gateway.start();
      const url = `ws://127.0.0.1:${port}/v1/tenants/acme/hooks/stall/ws`;
      home = new PicoClawHome((d) =>
        picoclawConfig(
          d,
          model!.url,
          Object.fromEntries(
            Object.entries(hooks).map(([name, h]) => [name, bridgeHook({ ...h, url, token })]),
          ),
        ),
      );
      const running = home.run('Run the command.', 'hookgate-stopped');
      await until(() => existsSync(mark()), 20_000, 'the hook call to reach the stalling hook');
      const killedAt = Date.now();
      gateway.kill();
      const run = await running;
      return { run, model, answeredMs: model.resultsReceivedAt - killedAt };
    }

    it('interceptor fails open (PicoClaw goes on to approval), approval is denied, the turn ends', async () => {
      const { run, model, answeredMs } = await turnWithGatewayKilled({
        interceptor: { intercept: ['before_tool'], priority: 1 },
        approver: { intercept: ['approve_tool'], priority: 2, flags: ['--approval-timeout-ms', '3000'] },
      });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('all done');
      // A denied before_tool would read "denied by hook"; reaching the approver means continue.
      expect(model.result(0)).toMatch(/^Tool execution denied by approval hook: hookgate: /);
      expect(existsSync(join(run.workspace, 'exec-ran'))).toBe(false);
      expect(answeredMs).toBeLessThan(2000);
    }, 90_000);

    it('interceptor fails closed with --on-failure closed: the tool is denied, the turn ends', async () => {
      const { run, model, answeredMs } = await turnWithGatewayKilled({
        interceptor: { intercept: ['before_tool'], flags: ['--on-failure', 'closed'] },
      });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('all done');
      expect(model.result(0)).toMatch(/^Tool execution denied by hook: hookgate: /);
      expect(existsSync(join(run.workspace, 'exec-ran'))).toBe(false);
      expect(answeredMs).toBeLessThan(2000);
    }, 90_000);

    it('with no gateway at all, PicoClaw still starts (hello answered) and the turn ends by the failure mode', async () => {
      model = new FakeModel([
        { name: 'exec', arguments: { action: 'run', command: 'touch exec-ran && echo ran' } },
      ]);
      await model.start();
      const url = `ws://127.0.0.1:${port}/v1/tenants/acme/hooks/stall/ws`;
      home = new PicoClawHome((d) =>
        picoclawConfig(d, model!.url, {
          interceptor: bridgeHook({
            url,
            token,
            intercept: ['before_tool'],
            flags: ['--on-failure', 'closed'],
          }),
        }),
      );
      const run = await home.run('Run the command.', 'hookgate-no-gateway', 30_000);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('all done');
      expect(model.result(0)).toMatch(/^Tool execution denied by hook: hookgate: /);
      expect(existsSync(join(run.workspace, 'exec-ran'))).toBe(false);
    }, 60_000);
  },
);
