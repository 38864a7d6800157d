import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The exchanges captured from Claude Code 2.1.328 (see test/fixtures/claude-code/README.md). */
export const CC_FIXTURE_DIR = join(import.meta.dirname, '..', 'fixtures', 'claude-code');

export interface CcExchange {
  file: string;
  seq: number;
  event: string;
  body: Record<string, any>;
  response: { status: number; body: unknown };
}

export interface CcRun {
  file: string;
  settings: Record<string, any>;
  outcome: Record<string, any>;
}

export function loadCcFixtures(): { exchanges: CcExchange[]; runs: CcRun[] } {
  const exchanges: CcExchange[] = [];
  const runs: CcRun[] = [];
  for (const file of readdirSync(CC_FIXTURE_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(join(CC_FIXTURE_DIR, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const o = JSON.parse(line);
      if (o.event === '(run)') runs.push({ file, settings: o.settings, outcome: o.outcome });
      else exchanges.push({ file, seq: o.seq, event: o.event, body: o.request.body, response: o.response });
    }
  }
  return { exchanges, runs };
}

/**
 * For each captured answer a hook behind hookgate can produce: the PicoClaw answer that produces
 * it. Keyed `<file>#<seq>`. An answer of `{}` (or an empty body) needs no entry: a hook that
 * answers `continue` (or `{approved}` absent, or an event) produces it.
 */
export const PRODUCIBLE: Record<string, Record<string, unknown>> = {
  '02-pretooluse-deny.jsonl#1': { action: 'deny_tool', reason: 'DENY-REASON-cc: denied by record-hook' },
  '05-pretooluse-updatedinput-no-decision.jsonl#1': {
    action: 'modify',
    call: {
      tool: 'Bash',
      arguments: { command: 'echo rewritten-<MARKER>', description: 'print a test marker' },
    },
  },
  '10-userpromptsubmit-block.jsonl#1': {
    action: 'abort_turn',
    reason: 'BLOCK-REASON-prompt-cc: prompt rejected by record-hook',
  },
  '14-permissionrequest-allow.jsonl#2': { approved: true },
  '16-permissionrequest-deny.jsonl#2': { approved: false, reason: 'PR-DENY-cc: denied by record-hook' },
};

/**
 * Captured answers no hook behind hookgate produces, each with why. A new fixture must land in
 * PRODUCIBLE, answer `{}`, or here.
 */
export const NOT_PRODUCED: Record<string, string> = {
  '01-pretooluse-allow.jsonl#1': 'PreToolUse never emits allow (it would skip the permission prompt)',
  '03-pretooluse-ask.jsonl#1': 'PicoClaw has no "ask a person" answer',
  '04-pretooluse-updatedinput.jsonl#1': 'a rewrite leaves without allow (05 shows it applies so)',
  '06-pretooluse-additionalcontext.jsonl#1': 'PicoClaw answers carry no extra context',
  '08-posttooluse-block.jsonl#1': 'after_tool has no block (the model would still get the output)',
  '09-posttooluse-additionalcontext.jsonl#1': 'PicoClaw answers carry no extra context',
  '11-userpromptsubmit-additionalcontext.jsonl#1': 'PicoClaw answers carry no extra context',
  '15-permissionrequest-allow-updatedinput.jsonl#2': 'approve_tool answers carry no new input',
  '17-pretooluse-ask-needs-permission.jsonl#1': 'PicoClaw has no "ask a person" answer',
  '18-all-events-http500.jsonl': 'an authenticated call is always answered 200',
  '19-all-events-timeout.jsonl': 'the gateway answers by the failure mode before its deadline',
  '20-all-events-non-json.jsonl': 'the gateway always answers JSON',
  '21-pretooluse-non-json-deny-text.jsonl': 'the gateway always answers JSON',
  '22-pretooluse-http403-deny-body.jsonl': 'a decision never leaves with a non-2xx status',
  '23-pretooluse-slow-20s-no-timeout-configured.jsonl#1': 'PreToolUse never emits allow',
};

export function keyOf(x: CcExchange): string {
  return `${x.file}#${x.seq}`;
}

export function notProduced(x: CcExchange): string | undefined {
  return NOT_PRODUCED[keyOf(x)] ?? NOT_PRODUCED[x.file];
}

/** The body Claude Code read: an empty body counts as `{}` (fixture 07). */
export function answeredBody(x: CcExchange): unknown {
  return x.response.body === null ? {} : x.response.body;
}

/**
 * A Claude Code hook call for its Bash tool, with the fields the real host sends (PreToolUse also
 * carries its `tool_use_id`; PermissionRequest does not).
 */
export function claudeCodeBash(command: string, event = 'PreToolUse') {
  return {
    session_id: 'sess-1',
    // Claude Code sends absolute paths of the user's machine; these name no real one.
    transcript_path: '/home/dev/.claude/projects/demo/sess-1.jsonl',
    cwd: '/home/dev/demo',
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: { command },
    ...(event === 'PreToolUse' ? { tool_use_id: 'toolu_1' } : {}),
  };
}
