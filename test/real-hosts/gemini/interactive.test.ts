import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shimEvents } from '../../../src/hosts/command/setup.node.js';
import { geminiSettings } from '../../../src/hosts/gemini/setup.js';
import { shellJoin } from '../../../src/node/cli/own-command.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { recorder } from '../../helpers/recording-hook.js';
import { HOOKGATE_ARGV } from '../hookgate-argv.js';
import { startFakeGemini } from './fake-gemini.js';
import { runGeminiAcp, runGeminiTty } from './run-interactive.js';
import { GEMINI_BIN, GEMINI_VERSION, geminiInstalled } from './run-gemini.js';

/**
 * What a hook's verdict does where Gemini CLI still asks before a tool runs. `-p` offers the shell
 * tool only in yolo (which asks nothing), so: the interactive screen on a pseudo-terminal, and ACP
 * mode (`--acp`, Gemini asking its client). The fake Gemini API asks for one `run_shell_command`
 * that creates a file, so whether the command ran is whether the file exists.
 *
 * - Interactive: a BeforeTool hook's `decision: "allow"` does not skip Gemini's confirmation (its
 *   scheduler reads only a hook's block, `ask` and rewritten input; the policy decides the rest).
 *   So the Gemini route sends no `allow`: it would change nothing.
 * - ACP: Gemini 0.61.0 runs no BeforeTool hook at all; the client's answer alone decides.
 */
const missing = `Gemini CLI ${GEMINI_VERSION} is not installed at ${GEMINI_BIN} (bash scripts/hosts/install.sh)`;
const why = geminiInstalled ? '' : ` (skipped: ${missing})`;
if (!geminiInstalled && process.env.CI) {
  describe('Gemini CLI interactive', () => {
    it('is installed', () => {
      throw new Error(missing);
    });
  });
}

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const CONFIRM = /Allow execution of/;

describe.skipIf(!geminiInstalled)(`Gemini CLI ${GEMINI_VERSION}: hooks where Gemini asks${why}`, () => {
  let gw: TestGateway;
  let token: string;
  let dir: string;

  beforeAll(async () => {
    gw = await startTestGateway({
      tenants: { acme: tenantDoc({ strict: { ...rec, modes: ['tool'], on_failure: 'closed' } }) },
    });
    token = await gw.token();
    dir = mkdtempSync(join(tmpdir(), 'hookgate-gemini-ask-'));
  });
  afterAll(async () => {
    await gw?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    recorder().calls.length = 0;
    recorder().answer = () => ({ action: 'continue' });
  });

  let n = 0;
  const marker = () => join(dir, `ran-${++n}`);

  /** A BeforeTool hook that answers `decision: "allow"` and leaves a file saying it ran. */
  function allowHook(ranFile: string) {
    const code = `let s='';process.stdin.on('data',c=>s+=c).on('end',()=>{require('fs').writeFileSync(${JSON.stringify(ranFile)},s);process.stdout.write('{"decision":"allow","reason":"allowed by the hook"}')})`;
    const command = shellJoin([process.execPath, '-e', code]);
    return {
      hooks: {
        BeforeTool: [
          { matcher: '.*', hooks: [{ type: 'command', name: 'allow', command, timeout: 30_000 }] },
        ],
      },
    };
  }

  const hookgateSettings = () =>
    geminiSettings(
      shimEvents(gw.config.tenants.get('acme')!.hooks.get('strict')!, 'gemini', gw.url, HOOKGATE_ARGV),
      'hookgate-strict',
    );

  it('interactive, default mode: a hook\'s decision "allow" does not skip the confirmation; the command waits', async () => {
    const file = marker();
    const hookRan = join(dir, `hook-ran-${n}`);
    const model = await startFakeGemini({ command: `touch ${file}`, description: 'make the file' });
    try {
      const r = await runGeminiTty({
        settings: allowHook(hookRan),
        flags: [],
        modelUrl: model.url,
        token,
        until: [CONFIRM],
        untilFile: file,
      });
      expect(JSON.parse(readFileSync(hookRan, 'utf8'))).toMatchObject({
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
      });
      expect(r.matched).toBe(CONFIRM);
      expect(r.fileAppeared).toBe(false);
      expect(existsSync(file)).toBe(false);
    } finally {
      await model.close();
    }
  });

  it('interactive, yolo: the same harness sees the command run without a question (the control)', async () => {
    const file = marker();
    const model = await startFakeGemini({ command: `touch ${file}`, description: 'make the file' });
    try {
      const r = await runGeminiTty({
        settings: allowHook(join(dir, `hook-ran-${n}`)),
        flags: ['--approval-mode', 'yolo'],
        modelUrl: model.url,
        token,
        until: [CONFIRM],
        untilFile: file,
      });
      expect(r.fileAppeared).toBe(true);
      expect(r.matched).toBeUndefined();
    } finally {
      await model.close();
    }
  });

  it("interactive, default mode: hookgate's no objection leaves Gemini's own confirmation", async () => {
    const file = marker();
    const model = await startFakeGemini({ command: `touch ${file}`, description: 'make the file' });
    try {
      const r = await runGeminiTty({
        settings: hookgateSettings(),
        flags: [],
        modelUrl: model.url,
        token,
        until: [CONFIRM],
        untilFile: file,
      });
      expect(recorder().calls[0]).toMatchObject({
        method: 'hook.before_tool',
        params: { tool: 'run_shell_command' },
      });
      expect(r.matched).toBe(CONFIRM);
      expect(existsSync(file)).toBe(false);
    } finally {
      await model.close();
    }
  });

  for (const answer of ['proceed_once', 'cancelled'] as const)
    it(`ACP (--acp): no BeforeTool hook runs, even hookgate's deny; the client's ${answer} alone decides`, async () => {
      recorder().answer = () => ({ action: 'deny_tool', reason: 'no shell' });
      const file = marker();
      const model = await startFakeGemini({ command: `touch ${file}`, description: 'make the file' });
      try {
        const r = await runGeminiAcp({ settings: hookgateSettings(), modelUrl: model.url, token, answer });
        expect(r.permissionRequests).toEqual([
          expect.objectContaining({
            toolCall: expect.objectContaining({ title: `touch ${file}`, kind: 'execute' }),
          }),
        ]);
        expect(recorder().calls).toEqual([]);
        expect(existsSync(file)).toBe(answer === 'proceed_once');
      } finally {
        await model.close();
      }
    });
});
