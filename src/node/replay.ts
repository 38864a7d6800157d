import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { GatewayConfig } from '../config/runtime.js';
import { DECISION_SCHEMA_V1, decisionRecordV1, verdictOf } from '../server/decision-record.js';
import { hostTraitsOf } from '../hosts/traits.js';
import { type ReplayViolation, redecide } from '../server/redecide.js';

/** One recorded call whose decision the new config changes. */
export interface ChangedDecision {
  line: number;
  decision_id: string;
  tenant: string;
  hook: string;
  method: string;
  tool: string | null;
  old: { kind: string; verdict: string | null };
  new: { kind: string; verdict: string | null };
  /** The grants and rules behind the new decision (none: the old ones no longer apply). */
  rules: ReplayViolation[];
}

/** What a replay found: totals, changes per tenant/hook/rule, each change, and what it could not read or re-decide. */
export interface ReplayReport {
  records: number;
  redecided: number;
  unchanged: number;
  changed: ChangedDecision[];
  /** `tenant/hook/rule` → changed decisions (`-` when no rule applies any more). */
  byRule: Record<string, number>;
  /** Lines that are not records of a schema this hookgate reads (each named by line). */
  unreadable: { line: number; why: string }[];
  /** Records that could not be re-decided, with why (each named by line). */
  notRedecided: { line: number; why: string }[];
  /** Log lines (a `stdout` sink shares the stream with the log): not records, counted only. */
  logLines: number;
}

/**
 * Re-decides every record of a decision log (NDJSON, as `server.decisions` writes it) under
 * `config`. Nothing is skipped silently: every line is a record re-decided (changed or not), a
 * record it cannot re-decide, a line it cannot read, or a log line of the gateway's own.
 */
export async function replayLog(path: string, config: GatewayConfig): Promise<ReplayReport> {
  const report: ReplayReport = {
    records: 0,
    redecided: 0,
    unchanged: 0,
    changed: [],
    byRule: {},
    unreadable: [],
    notRedecided: [],
    logLines: 0,
  };
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      report.unreadable.push({ line: n, why: 'not JSON (a truncated or malformed line)' });
      continue;
    }
    const schema = (value as { schema?: unknown } | null)?.schema;
    if (schema === undefined && isLogLine(value)) {
      report.logLines++;
      continue;
    }
    if (schema !== DECISION_SCHEMA_V1) {
      report.unreadable.push({
        line: n,
        why: `schema ${JSON.stringify(schema ?? null)} is not one this hookgate reads (${DECISION_SCHEMA_V1})`,
      });
      continue;
    }
    const parsed = decisionRecordV1.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      report.unreadable.push({ line: n, why: `${issue.path.join('.') || '(record)'}: ${issue.message}` });
      continue;
    }
    report.records++;
    const record = parsed.data;
    const result = redecide(record, config, hostTraitsOf);
    if (!result.ok) {
      report.notRedecided.push({ line: n, why: result.why });
      continue;
    }
    report.redecided++;
    if (!result.changed) {
      report.unchanged++;
      continue;
    }
    report.changed.push({
      line: n,
      decision_id: record.decision_id,
      tenant: record.tenant,
      hook: record.hook,
      method: record.method,
      tool: record.tool,
      old: { kind: record.kind, verdict: record.verdict },
      new: { kind: result.kind, verdict: verdictOf(result.answer) },
      rules: result.violations,
    });
    const rules = result.violations.length > 0 ? [...new Set(result.violations.map((v) => v.rule))] : ['-'];
    for (const rule of rules) {
      const key = `${record.tenant}/${record.hook}/${rule}`;
      report.byRule[key] = (report.byRule[key] ?? 0) + 1;
    }
  }
  return report;
}

function isLogLine(v: unknown): boolean {
  return typeof v === 'object' && v !== null && 'level' in v && 'msg' in v;
}

/** The report as people read it: counts per tenant/hook/rule, then each change. */
export function formatReport(r: ReplayReport): string {
  const out: string[] = [
    `${r.records} record(s): ${r.redecided} re-decided, ${r.changed.length} changed, ${r.unchanged} unchanged, ${r.notRedecided.length} not re-decided; ${r.unreadable.length} unreadable line(s)${r.logLines > 0 ? `, ${r.logLines} log line(s) passed over` : ''}`,
  ];
  const keys = Object.keys(r.byRule).sort();
  if (keys.length > 0) {
    out.push('', 'changed, by tenant/hook/rule:');
    for (const k of keys) out.push(`  ${k}  ${r.byRule[k]}`);
    out.push('', 'changed decisions:');
    for (const c of r.changed) {
      const rules = c.rules.length > 0 ? c.rules.map((v) => v.rule).join(', ') : 'no rule applies any more';
      out.push(
        `  line ${c.line} ${c.decision_id} ${c.tenant}/${c.hook} ${c.method}${c.tool ? ` ${c.tool}` : ''}: ${c.old.kind} (${c.old.verdict}) -> ${c.new.kind} (${c.new.verdict}) [${rules}]`,
      );
    }
  }
  if (r.notRedecided.length > 0) {
    out.push('', 'not re-decided:');
    for (const x of r.notRedecided) out.push(`  line ${x.line}: ${x.why}`);
  }
  if (r.unreadable.length > 0) {
    out.push('', 'unreadable:');
    for (const x of r.unreadable) out.push(`  line ${x.line}: ${x.why}`);
  }
  return `${out.join('\n')}\n`;
}
