import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picoclawSetup } from '../../../src/hosts/picoclaw/setup.node.js';
import { REPO, startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import {
  type AgentRun,
  bridgeHook,
  FakeModel,
  PicoClawHome,
  picoclawConfig,
  picoclawMissing,
  type ProcessHook,
} from './harness.js';

/**
 * The real PicoClaw, one headless turn, its process hooks being `hookgate bridge` to a real gateway:
 * the Python example hook (stdio backend) answers get_weather, and a policy hook tries to answer
 * `exec` itself, denies `list_dir` and decides approvals. The model asks for four tools in one batch;
 * what it receives back as each tool result, and what ran in the workspace, is what PicoClaw did.
 */

const missing = picoclawMissing();

/** The one process hook of a `setup picoclaw` block, as the harness's config builder takes it. */
function setupEntry(setup: ReturnType<typeof picoclawSetup>): ProcessHook {
  const processes = (setup.config.hooks as { processes: Record<string, Record<string, unknown>> }).processes;
  const [entry] = Object.values(processes);
  expect(entry.env).toBeUndefined();
  return {
    command: entry.command as string[],
    intercept: entry.intercept as string[],
    priority: entry.priority as number,
  };
}

describe.skipIf(missing)(
  `real PicoClaw: process hooks through hookgate bridge${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let gw: TestGateway;
    let home: PicoClawHome;
    let run: AgentRun;
    const model = new FakeModel([
      { name: 'get_weather', arguments: { city: 'Berlin' } },
      { name: 'exec', arguments: { action: 'run', command: 'touch exec-ran && echo picoclaw-ran-exec' } },
      { name: 'list_dir', arguments: { path: '.' } },
      { name: 'exec', arguments: { action: 'run', command: 'touch forbidden-ran && echo forbidden' } },
    ]);

    beforeAll(async () => {
      await model.start();
      gw = await startTestGateway({
        tenants: {
          acme: tenantDoc({
            weather: {
              backend: { type: 'stdio', command: ['python3', 'examples/weather_hook.py'] },
              modes: ['llm', 'tool'],
              tools: ['get_weather'],
            },
            policy: {
              backend: { type: 'module', module: join(import.meta.dirname, 'policy-hook.ts') },
              modes: ['tool', 'approve'],
              tools: [],
            },
          }),
        },
      });
      const token = await gw.token({ hooks: ['weather', 'policy'] });
      const ws = (hook: string) => `${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/${hook}/ws`;
      home = new PicoClawHome((dir) =>
        picoclawConfig(dir, model.url, {
          weather: bridgeHook({ url: ws('weather'), token, intercept: ['before_tool'], priority: 1 }),
          // The entry `hookgate setup picoclaw` prints (the bridge run from this checkout): no token in
          // config.json, the bridge reads HOOKGATE_TOKEN from PicoClaw's environment.
          policy: setupEntry(
            picoclawSetup(gw.config.tenants.get('acme')!.hooks.get('policy')!, gw.url, {
              command: [process.execPath, join(REPO, 'bin', 'hookgate.js')],
            }),
          ),
        }),
      );
      run = await home.run('What is the weather in Berlin? Then run the commands.', 'hookgate-e2e', 60_000, {
        HOOKGATE_TOKEN: token,
      });
    });

    afterAll(async () => {
      home?.remove();
      await gw?.close();
      await model.close();
    });

    it('the turn ends normally: the model got every tool result and its final answer was printed', () => {
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('all done');
      expect(model.toolResults.size).toBe(4);
    });

    it("the Python hook's respond for get_weather (in its tools) is the tool result", () => {
      expect(model.result(0)).toBe('Berlin: 18 C, light rain');
    });

    it("a respond for exec (not in the hook's tools) is refused: PicoClaw ran exec itself", () => {
      expect(model.result(1)).toContain('picoclaw-ran-exec');
      expect(model.result(1)).not.toContain('pretended');
      expect(existsSync(join(run.workspace, 'exec-ran'))).toBe(true);
      expect(gw.logs.audits()).toContainEqual(
        expect.objectContaining({
          hook: 'policy',
          tool: 'exec',
          rule: 'respond_tool_not_granted',
          answered: 'continue',
        }),
      );
    });

    it('a deny_tool blocks the tool, with the reason', () => {
      expect(model.result(2)).toBe('Tool execution denied by hook: listing is not allowed here');
    });

    it('the approval hook approves (exec ran above) and denies: the denied exec never ran', () => {
      expect(model.result(3)).toBe('Tool execution denied by approval hook: no forbidden commands');
      expect(existsSync(join(run.workspace, 'forbidden-ran'))).toBe(false);
    });
  },
);
