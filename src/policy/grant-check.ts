/**
 * The condition half of a tool grant on one hook answer. The name half stays where it always was
 * (the effective policy's sets, narrowed by the token's `tools` claim); a tool that passes it is
 * granted only by a plain entry or by an entry whose condition holds on the call's view. The view
 * is built only when a conditional entry has to be evaluated, so a config without conditions pays
 * nothing per call.
 */
import type { GrantEntry, ToolGrant } from '../config/grant-entries.js';
import type { HookRuntime, HookToolGrants } from '../config/runtime.js';
import { checkGrant, type ConditionView } from './conditions/index.js';
import type { CallByKind } from './conditions/view.js';
import { kindedCall } from './tool-kinds.js';
import { isPlainObject } from './equal.js';

/**
 * What a condition sees about a call beyond its params: where it came from, who asked, when.
 * The gateway fills it in per call; the policy itself reads no clock.
 */
export interface CallFacts {
  /** The host (the dialect): picoclaw, claude-code, openclaw, hermes, mcp, codex, … */
  host: string;
  /** The verified token's claims. */
  claims: Readonly<Record<string, unknown>>;
  /** When the call reached the gateway, epoch ms. */
  now: number;
  /**
   * Present when the hook's grant conditions are in shadow mode: a condition that would refuse
   * is written here instead, and the call is granted (nothing changes but the record).
   */
  would?: string[];
}

/** Whose call a view is of: the tenant and hook, and the facts of the call. */
export interface ViewSubject {
  tenant: string;
  hook: string;
  facts: CallFacts;
}

/** One grant check: which list, for which hook. */
export interface GrantCheck extends ViewSubject {
  grant: ToolGrant;
}

/** The check of one of the hook's grant lists for a call. */
export function grantCheck(hook: HookRuntime, kind: keyof HookToolGrants, facts: CallFacts): GrantCheck {
  return { grant: hook.toolGrants[kind], tenant: hook.tenant, hook: hook.name, facts };
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_KIND: Readonly<CallByKind> = Object.freeze({
  kind: '',
  command: '',
  paths: Object.freeze([]),
  url: '',
});

/** A call's view for conditions: the tool's arguments and the ids the host sent, never messages. */
export function callView(
  check: ViewSubject,
  tool: string,
  args: unknown,
  meta: unknown,
  newArgs?: Readonly<Record<string, unknown>>,
): ConditionView {
  const m = isPlainObject(meta) ? meta : EMPTY;
  return {
    tool,
    args: isPlainObject(args) ? args : EMPTY,
    call: kindedCall(check.facts.host, tool, args) ?? NO_KIND,
    host: check.facts.host,
    tenant: check.tenant,
    hook: check.hook,
    claims: check.facts.claims,
    session_id: typeof m.SessionKey === 'string' ? m.SessionKey : '',
    agent_id: typeof m.AgentID === 'string' ? m.AgentID : '',
    now: new Date(check.facts.now),
    new_args: newArgs ?? EMPTY,
  };
}

/**
 * Why `tool` is not granted on this call, or undefined when it is. Only for a tool the list
 * names (the caller checked the name): a plain entry grants it without a view.
 */
export function conditionRefusal(
  check: GrantCheck,
  tool: string,
  view: () => ConditionView,
): string | undefined {
  const entries = check.grant.entries.get(tool);
  if (!entries) return 'not granted';
  if (entries.some((e) => e.condition === undefined)) return undefined;
  const decision = checkGrant(check.grant, tool, view());
  if (decision.granted) return undefined;
  let why: string;
  if (decision.error) {
    const entry = entries.find((e) => e.path === decision.error!.entry);
    why = `${entry ? entryLabel(entry) : decision.error.entry}: condition failed: ${decision.error.message}`;
  } else {
    why = `${entries.map(entryLabel).join(', ')}: condition is false`;
  }
  const would = check.facts.would;
  if (!would) return why;
  would.push(`would refuse tool "${tool}": ${why}`);
  return undefined;
}

/** conditionRefusal on a call's own params (its `arguments` and `meta`). */
export function callRefusal(
  check: GrantCheck,
  tool: string,
  params: Record<string, unknown>,
): string | undefined {
  return conditionRefusal(check, tool, () => callView(check, tool, params.arguments, params.meta));
}

/**
 * A rewrite of `tool` into `newTool` with `newArgs`: granted on the call as the host sent it (with
 * `new_args` set) and on the call it would become. Both must hold; a rewrite into something the
 * grant does not cover is refused like one the hook never had.
 */
export function rewriteRefusal(
  check: GrantCheck,
  original: Record<string, unknown>,
  tool: string,
  newTool: string,
  newArgs: unknown,
): string | undefined {
  const rewritten = isPlainObject(newArgs) ? newArgs : EMPTY;
  const before = conditionRefusal(check, tool, () =>
    callView(check, tool, original.arguments, original.meta, rewritten),
  );
  if (before) return before;
  const after = conditionRefusal(check, newTool, () =>
    callView(check, newTool, rewritten, original.meta, rewritten),
  );
  return after && `on the rewritten call: ${after}`;
}

const MAX_SOURCE_IN_LABEL = 160;

/**
 * An entry as audit lines name it: `approve_tools[0] (Bash when args.command.startsWith("git"))`,
 * the list and index read off its config path (`….grants.approve_tools.0`).
 */
export function entryLabel(entry: GrantEntry): string {
  const parts = entry.path.split('.');
  const where = `${parts[parts.length - 2]}[${parts[parts.length - 1]}]`;
  if (!entry.condition) return `${where} (${entry.tool})`;
  const source = entry.condition.source;
  const shown = source.length > MAX_SOURCE_IN_LABEL ? `${source.slice(0, MAX_SOURCE_IN_LABEL)}…` : source;
  return `${where} (${entry.tool} when ${shown})`;
}
