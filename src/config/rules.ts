/**
 * Gateway rules (`tenants.<t>.rules`, `tenants.<t>.hooks.<h>.rules`): conditions the gateway
 * evaluates on a tool call before the hook is asked, each with an action. The schema and the
 * compiler, once per config; the evaluation per call is src/policy/rules.ts.
 */
import { z } from 'zod';
import { type CompiledCondition, compileCondition } from '../policy/conditions/index.js';
import { TOOL_KIND_NAMES } from '../policy/tool-kinds.js';
import { ConfigError, type ConfigIssue } from './errors.js';

/**
 * `ask_human`: the gateway holds the call and asks a person through its own approvals (the inbox,
 * the API, the tenant's webhook: docs/approvals.md); `ask`: the host's own approval.
 */
export const RULE_ACTIONS = ['deny', 'ask_human', 'ask', 'allow'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** `enforce` decides; `shadow` decides, records what it would have done, and changes nothing. */
export const POLICY_MODES = ['enforce', 'shadow'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

const toolSelector = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const ruleSchema = z
  .object({
    /** Names the rule in answers, audit lines and decision records. */
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, ".", "_" and "-"'),
    /** Tool names as the host calls them, or "*" for every tool. */
    tool: toolSelector.optional(),
    /** Kinds of tool on every host (shell, file_read, file_write, web_fetch): docs/tool-kinds.md. */
    kind: z.union([z.enum(TOOL_KIND_NAMES), z.array(z.enum(TOOL_KIND_NAMES)).min(1)]).optional(),
    /** A CEL condition (docs/policy.md); absent: every call the selectors match. */
    when: z.string().optional(),
    action: z.enum(RULE_ACTIONS),
    /** What the host (and so the model) is told on a deny or an ask. */
    reason: z.string().max(1024).optional(),
    mode: z.enum(POLICY_MODES).optional(),
  })
  .strict()
  .refine((r) => r.tool !== undefined || r.kind !== undefined, {
    message: 'name the calls it applies to: `tool` (names or "*"), `kind`, or both',
  });

export const rulesSchema = z.array(ruleSchema).max(1000).default([]);

export type RuleDocument = z.infer<typeof ruleSchema>;

export interface CompiledRule {
  name: string;
  /** Where it is in the config (`tenants.acme.rules.0`). */
  path: string;
  /** true: every tool; otherwise the names it applies to. */
  anyTool: boolean;
  tools: ReadonlySet<string>;
  kinds: ReadonlySet<string>;
  condition?: CompiledCondition;
  action: RuleAction;
  reason: string;
  mode: PolicyMode;
}

/**
 * Compiles a validated list once per config. `mode` is the rule's own, else the hook's or
 * tenant's (the caller passes the nearest one set). Problems go onto `issues` under the rule's path.
 */
export function compileRules(
  list: readonly RuleDocument[],
  path: string,
  inherited: PolicyMode,
  issues: ConfigIssue[],
): CompiledRule[] {
  const rules: CompiledRule[] = [];
  const names = new Set<string>();
  list.forEach((doc, i) => {
    const rulePath = `${path}.${i}`;
    if (names.has(doc.name)) {
      issues.push({ path: `${rulePath}.name`, message: `duplicate rule name "${doc.name}"` });
      return;
    }
    names.add(doc.name);
    const tools = doc.tool === undefined ? [] : typeof doc.tool === 'string' ? [doc.tool] : doc.tool;
    const kinds = doc.kind === undefined ? [] : typeof doc.kind === 'string' ? [doc.kind] : doc.kind;
    let condition: CompiledCondition | undefined;
    if (doc.when !== undefined) {
      try {
        condition = compileCondition(doc.when, `${rulePath}.when`);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        issues.push(...err.issues);
        return;
      }
    }
    rules.push({
      name: doc.name,
      path: rulePath,
      anyTool: tools.includes('*'),
      tools: new Set(tools.filter((t) => t !== '*')),
      kinds: new Set(kinds),
      condition,
      action: doc.action,
      reason: doc.reason ?? defaultReason(doc.name, doc.action),
      mode: doc.mode ?? inherited,
    });
  });
  return rules;
}

function defaultReason(name: string, action: RuleAction): string {
  if (action === 'deny') return `denied by rule "${name}"`;
  if (action === 'ask') return `rule "${name}" asks for a person's approval`;
  if (action === 'ask_human') return `rule "${name}" asks a person through hookgate`;
  return `allowed by rule "${name}"`;
}
