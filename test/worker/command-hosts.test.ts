/**
 * The command-hook host routes (Codex, Copilot CLI, Gemini CLI, as `hookgate hook` forwards their
 * stdin) inside workerd, served by the production Worker: the module hook answers `respond` for
 * every tool but is granted only get_weather, so for a shell call each host gets its block carrying
 * nothing of the hook's, and each refusal is audited with its dialect.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { logLines } from './entry.js';
import { HOOK_URL, token } from './helpers.js';

const worker = exports.default;

async function post(route: string, body: unknown): Promise<Response> {
  return worker.fetch(`${HOOK_URL}/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
    body: JSON.stringify(body),
  });
}

const auditsFor = (dialect: string) =>
  logLines
    .map((l) => JSON.parse(l))
    .filter((l) => l.audit?.dialect === dialect)
    .map((l) => l.audit);

const STDIN = {
  codex: {
    session_id: 's1',
    turn_id: 't1',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'id' },
    tool_use_id: 'call_1',
  },
  copilot: { sessionId: 's1', timestamp: 1, cwd: '/', toolName: 'bash', toolArgs: { command: 'id' } },
  gemini: {
    session_id: 's1',
    hook_event_name: 'BeforeTool',
    timestamp: '2026-11-27T00:00:00Z',
    tool_name: 'run_shell_command',
    tool_input: { command: 'id' },
  },
} as const;

describe('command-hook host routes in workerd', () => {
  for (const [host, stdin] of Object.entries(STDIN)) {
    it(`${host}: a respond for a tool the hook does not own is refused (no objection) and audited`, async () => {
      const res = await post(host, stdin);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
      expect(auditsFor(host)).toEqual([expect.objectContaining({ rule: 'respond_tool_not_granted' })]);
    });
  }

  it('a body of the wrong shape is a 400', async () => {
    const res = await post('copilot', { toolName: 'bash', toolArgs: 'id' });
    expect(res.status).toBe(400);
  });
});
