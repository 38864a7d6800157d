import type { HookRuntime } from '../config/runtime.js';

/** The stable names of the rules the gateway enforces; audit lines and deny reasons carry them. */
export type PolicyRule =
  | 'mode_not_granted'
  /** A call for a tool outside the effective tools, refused before the hook saw it (MCP route). */
  | 'tool_not_granted'
  | 'respond_tool_not_granted'
  | 'inject_tool_not_granted'
  | 'host_tool_definitions_changed'
  | 'system_messages_changed'
  | 'rewrite_messages_not_granted'
  | 'rewrite_model_not_granted'
  | 'rename_not_granted'
  | 'rewrite_arguments_not_granted'
  /** A rewrite that drops an argument, for a host that merges rewrites (HostTraits.mergesArguments). */
  | 'rewrite_removes_argument'
  | 'rewrite_results_not_granted'
  | 'rewrite_llm_response_not_granted'
  | 'tool_calls_id_only'
  | 'approve_tool_not_granted'
  /** A gateway rule denied the call or asked for a person (detail names the rule). */
  | 'gateway_rule';

export interface Violation {
  rule: PolicyRule;
  tool?: string;
  detail: string;
}

/**
 * What governs one call: the hook's config and the tools this call may use (the hook's `tools`
 * narrowed by the token's `tools` claim when present).
 */
export interface EffectivePolicy {
  hook: HookRuntime;
  /** respond and injection. */
  tools: ReadonlySet<string>;
  /** before_tool rename / argument rewrites: own tools plus `rewrite_tools`, narrowed likewise. */
  rewritable: ReadonlySet<string>;
  /**
   * Tools whose call the hook may approve past a host's own approval (`approve_tools`), narrowed
   * likewise. Only hosts with an approval of their own consult it (see CallOrigin.hostApproves).
   */
  approvable: ReadonlySet<string>;
}

export interface Enforced {
  /** The result to send to the host. */
  result: Record<string, unknown>;
  violations: Violation[];
}

export function effectivePolicy(hook: HookRuntime, tokenTools?: readonly string[]): EffectivePolicy {
  const rewritable = new Set([...hook.tools, ...hook.grants.rewriteTools]);
  const approvable = hook.grants.approveTools;
  if (!tokenTools) return { hook, tools: hook.tools, rewritable, approvable };
  const narrow = new Set(tokenTools);
  return {
    hook,
    tools: new Set([...hook.tools].filter((t) => narrow.has(t))),
    rewritable: new Set([...rewritable].filter((t) => narrow.has(t))),
    approvable: new Set([...approvable].filter((t) => narrow.has(t))),
  };
}
