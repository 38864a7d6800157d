import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The exchanges captured from OpenClaw 2026.9.6 (see test/fixtures/openclaw/README.md). */
export const OC_FIXTURE_DIR = join(import.meta.dirname, '..', 'fixtures', 'openclaw');

export interface OcExchange {
  file: string;
  seq: number;
  event: string;
  /** What the forwarding plugin posted: `{host, hook, event, ctx}`. */
  body: Record<string, any>;
  response: { status: number; body: unknown };
  outcome: Record<string, any>;
}

export interface OcRun {
  file: string;
  outcome: Record<string, any>;
}

export function loadOcFixtures(): { exchanges: OcExchange[]; runs: OcRun[] } {
  const exchanges: OcExchange[] = [];
  const runs: OcRun[] = [];
  for (const file of readdirSync(OC_FIXTURE_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(join(OC_FIXTURE_DIR, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const o = JSON.parse(line);
      if (o.event === '(run)') runs.push({ file, outcome: o.outcome });
      else
        exchanges.push({
          file,
          seq: o.seq,
          event: o.event,
          body: o.request.body,
          response: o.response,
          outcome: o.outcome,
        });
    }
  }
  return { exchanges, runs };
}

export function keyOf(x: OcExchange): string {
  return `${x.file}#${x.seq}`;
}

/**
 * What the handler returned to OpenClaw, as the plugin's answer: `{}` for "nothing: no objection"
 * and for observe hooks (whose answer OpenClaw ignores); undefined when the handler threw.
 */
export function returnedToHost(x: OcExchange): Record<string, unknown> | undefined {
  if (x.outcome.answerUsed === false) return {};
  const r = x.outcome.pluginReturnedToHost;
  if (typeof r === 'string') return {};
  if (r && typeof r === 'object') return r;
  return undefined;
}

/**
 * For each captured handler result a hook behind hookgate can produce: the PicoClaw answer that
 * produces it. Keyed `<file>#<seq>`. A result of `{}` needs no entry: `continue` produces it.
 */
export const PRODUCIBLE: Record<string, Record<string, unknown>> = {
  '01-before-tool-call-block.jsonl#1': {
    action: 'deny_tool',
    reason: 'BLOCK-REASON-oc: denied by record-hook',
  },
  '02-before-tool-call-params-rewrite.jsonl#1': {
    action: 'modify',
    call: { tool: 'exec', arguments: { command: 'echo rewritten-<MARKER>' } },
  },
};

/** Captured handler results no hook behind hookgate produces, each with why. */
export const NOT_PRODUCED: Record<string, string> = {
  '03-before-tool-call-require-approval.jsonl#1': 'PicoClaw has no "ask a person" answer',
  '08-before-agent-run-block.jsonl#4':
    'before_agent_run is an observed event (PicoClaw aborts turns at its steps)',
  '09-tool-hooks-http500.jsonl':
    'an authenticated call is always answered 200; the plugin blocks on any failure',
  '10-all-async-hooks-http500.jsonl': 'an authenticated call is always answered 200',
  '12-before-tool-call-non-json.jsonl#1': 'the gateway always answers JSON',
  '13-before-tool-call-plugin-timeout-2s.jsonl#1':
    'the gateway answers by the failure mode before its deadline',
  '14-before-tool-call-host-budget-15s.jsonl#1':
    'the gateway answers by the failure mode before its deadline',
};

export function notProduced(x: OcExchange): string | undefined {
  return NOT_PRODUCED[keyOf(x)] ?? NOT_PRODUCED[x.file];
}
