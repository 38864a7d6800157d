import { z } from 'zod';
import { canonicalJson } from '../lib/canonical-json.js';
import { sha256Hex } from '../lib/sha256.js';
import { RULE_ACTIONS } from '../config/rules.js';
import { DECISION_KINDS, type Decision } from './decision.js';

/** The `schema` every v1 record carries; a reader refuses records of a schema it does not know. */
export const DECISION_SCHEMA_V1 = 'hookgate.decision/v1';

const digest = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/)
  .nullable()
  .describe('sha256: and the hex SHA-256 of the canonical JSON (sorted keys, no whitespace); null when none');

/**
 * One decision record (v1): one JSON line per hook call. The JSON Schema in
 * schemas/decision-record.v1.json is generated from this (npm run schemas; a test keeps them in
 * sync). Adding an optional field keeps v1; renaming or removing one is v2.
 */
export const decisionRecordV1 = z
  .object({
    schema: z.literal(DECISION_SCHEMA_V1),
    decision_id: z.string().min(1).describe('Also the decision_id of the call’s audit lines'),
    time: z.iso.datetime().describe('When the call reached the gateway (UTC)'),
    tenant: z.string(),
    hook: z.string(),
    dialect: z.string().describe('The host protocol: picoclaw, claude-code, openclaw, hermes, mcp, codex…'),
    method: z.string().describe('The hook method: hook.before_tool, hook.approve_tool, …'),
    tool: z.string().nullable(),
    request_id: z.string().nullable(),
    token_tools: z
      .array(z.string())
      .nullable()
      .describe('The token’s tools claim, which narrows the hook’s tools; null when the token has none'),
    config_revision: z.string().describe('The config that decided (16 hex digits)'),
    kind: z.enum(DECISION_KINDS),
    hook_verdict: z
      .string()
      .nullable()
      .describe(
        'The hook’s answer in a word (its action, or approved:true|false); null when not asked or no answer',
      ),
    verdict: z
      .string()
      .nullable()
      .describe('What the gateway sent, in PicoClaw’s terms; null when a limit refused the call'),
    answered: z.string().describe('What the host was sent, in its own terms (as the audit line says)'),
    violations: z.array(
      z.object({ rule: z.string(), tool: z.string().optional(), detail: z.string() }).strict(),
    ),
    rules: z
      .array(
        z
          .object({
            name: z.string(),
            path: z.string().describe('Where the rule is in the config'),
            action: z.enum(RULE_ACTIONS),
            mode: z.enum(['enforce', 'shadow']),
            effect: z
              .enum(['decided', 'would', 'overruled', 'failed'])
              .describe(
                'decided: it answered the call; would: shadow, what it would have done; overruled: a stronger rule decided or approve_tools refused its allow; failed: its condition failed',
              ),
            error: z.string().optional(),
          })
          .strict(),
      )
      .optional()
      .describe('The gateway rules that applied to the call; absent when none did'),
    would: z
      .array(z.string())
      .optional()
      .describe('What shadow-mode grant conditions would have refused (nothing was)'),
    approval: z
      .object({
        id: z.string(),
        decision: z.enum(['approved', 'denied', 'expired']),
        approver: z.string().optional().describe('The approver token’s sub'),
        reason: z.string().optional(),
        waited_ms: z.number().min(0),
      })
      .strict()
      .optional()
      .describe('A person’s decision the gateway held the call for (an ask_human rule)'),
    limit: z
      .object({ name: z.string(), retry_after_ms: z.number().min(0) })
      .strict()
      .nullable(),
    failure: z
      .object({ code: z.string(), why: z.string(), on_failure: z.enum(['open', 'closed']) })
      .strict()
      .nullable(),
    latency_ms: z
      .object({ total: z.number().min(0), gateway: z.number().min(0), hook: z.number().min(0) })
      .strict()
      .describe('Through the gateway; gateway = total - hook'),
    params_digest: digest.describe('Of the params the host sent'),
    args_digest: digest.describe('Of the tool call’s arguments (tool methods); null for the others'),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The params the host sent: only for hooks with conversation_access or with include_args'),
    hook_answer: z
      .unknown()
      .optional()
      .describe('What the hook answered, under the same condition as params'),
    answer: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('What the gateway sent, in PicoClaw’s terms, under the same condition as params'),
  })
  .strict();

export type DecisionRecordV1 = z.infer<typeof decisionRecordV1>;

/** The schema's JSON Schema (draft 2020-12), as committed in schemas/decision-record.v1.json. */
export function decisionRecordJsonSchema(): Record<string, unknown> {
  return {
    $id: 'urn:hookgate:schema:decision-record:v1',
    title: 'hookgate decision record v1',
    ...z.toJSONSchema(decisionRecordV1, { target: 'draft-2020-12', io: 'output' }),
  };
}

/** An answer in a word: its action, or approved:true|false for an approval. */
export function verdictOf(answer: unknown): string | null {
  if (typeof answer !== 'object' || answer === null) return null;
  const a = answer as Record<string, unknown>;
  if ('approved' in a) return `approved:${a.approved === true}`;
  return typeof a.action === 'string' ? a.action : null;
}

/** SHA-256 as lowercase hex: Web Crypto by default; Node passes its synchronous node:crypto one. */
export type Sha256 = (text: string) => string | Promise<string>;

async function digestOf(value: unknown, hash: Sha256): Promise<string | null> {
  if (value === undefined) return null;
  try {
    return `sha256:${await hash(canonicalJson(value))}`;
  } catch {
    // Nested past the stack or cyclic: no digest rather than no record.
    return null;
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * The record of a final decision. `includeBodies`: the params and both answers themselves (the
 * hook has conversation_access, or the operator set include_args); otherwise their digests only.
 */
export async function toDecisionRecord(
  d: Decision,
  includeBodies: boolean,
  hash: Sha256 = sha256Hex,
): Promise<DecisionRecordV1> {
  const args = d.params.arguments;
  const [paramsDigest, argsDigest] = await Promise.all([
    digestOf(d.params, hash),
    args !== undefined && typeof d.params.tool === 'string' ? digestOf(args, hash) : Promise.resolve(null),
  ]);
  const total = round(d.totalMs);
  const hook = round(Math.min(d.hookMs, d.totalMs));
  const record: DecisionRecordV1 = {
    schema: DECISION_SCHEMA_V1,
    decision_id: d.id,
    time: new Date(d.time).toISOString(),
    tenant: d.tenant,
    hook: d.hook,
    dialect: d.dialect,
    method: d.method,
    tool: d.tool ?? null,
    request_id: d.requestId ?? null,
    token_tools: d.tokenTools ? [...d.tokenTools] : null,
    config_revision: d.configRevision,
    kind: d.kind,
    hook_verdict: d.hookAnswer === undefined ? null : verdictOf(d.hookAnswer),
    verdict: d.answer === undefined ? null : verdictOf(d.answer),
    answered: d.answered ?? '',
    violations: d.violations.map((v) =>
      v.tool === undefined ? { rule: v.rule, detail: v.detail } : { ...v },
    ),
    limit: d.limit ? { name: d.limit.name, retry_after_ms: d.limit.retryAfterMs } : null,
    failure: d.failure ? { code: d.failure.code, why: d.failure.why, on_failure: d.failure.onFailure } : null,
    latency_ms: { total, gateway: round(Math.max(0, total - hook)), hook },
    params_digest: paramsDigest,
    args_digest: argsDigest,
  };
  if (d.rules) record.rules = d.rules.map((r) => ({ ...r }));
  if (d.would) record.would = [...d.would];
  if (d.approval) {
    const a = d.approval;
    record.approval = {
      id: a.id,
      decision: a.decision,
      ...(a.approver !== undefined ? { approver: a.approver } : {}),
      ...(a.reason !== undefined ? { reason: a.reason } : {}),
      waited_ms: round(a.waitedMs),
    };
  }
  if (includeBodies) {
    record.params = d.params;
    if (d.hookAnswer !== undefined) record.hook_answer = d.hookAnswer;
    if (d.answer !== undefined) record.answer = d.answer;
  }
  return record;
}
