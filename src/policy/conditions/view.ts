/**
 * What a condition sees: one view per call, the same on every route and host. Each variable is
 * declared to the CEL type checker with the type below, so a condition that uses a variable that
 * does not exist, or uses one as the wrong type, is a config error at load rather than a refusal
 * at run time. docs/policy.md documents this table; a test keeps the two in step.
 *
 * Nothing here carries conversation text: `args` are the tool call's arguments, which the `tool`
 * mode already shows a hook. A later `result` (after_tool) is to be added only for hooks with
 * conversation access.
 */
export interface ConditionView {
  /** The tool's name as the host calls it (`Bash`, `exec`, `http_get`). */
  tool: string;
  /** The call's arguments, as the host sent them (JSON: numbers are doubles). */
  args: Readonly<Record<string, unknown>>;
  /** The host the call came from: picoclaw, claude-code, openclaw, hermes, mcp. */
  host: string;
  tenant: string;
  hook: string;
  /** The verified token's claims (`claims.sub`, `claims.tools` …). */
  claims: Readonly<Record<string, unknown>>;
  /** The session id the host sent, '' when it sent none. */
  session_id: string;
  /** The agent id the host sent, '' when it sent none. */
  agent_id: string;
  /** When the call is decided: the gateway's clock, one reading per call. */
  now: Date;
  /** For a rewrite: the arguments the hook would rewrite the call to; otherwise empty. */
  new_args: Readonly<Record<string, unknown>>;
  /**
   * The call by kind, the same on every host (docs/tool-kinds.md): `kind` (shell, file_read,
   * file_write, web_fetch, or '' for a tool of no kind), `command` (the shell command line),
   * `paths` (every file path read or written), `url` (the URL fetched); '' or [] where the call
   * has none. `call.command.matches("rm\\s+-rf")` holds on Claude Code's Bash, PicoClaw's exec, ….
   */
  call: Readonly<CallByKind>;
}

/** What a call is, by kind (src/policy/tool-kinds.ts): the same keys on every host. */
export interface CallByKind {
  kind: string;
  command: string;
  paths: readonly string[];
  url: string;
}

/** CEL type of each variable (the names the checker knows; `timestamp` is protobuf's). */
export const VIEW_TYPES: { readonly [K in keyof ConditionView]: string } = {
  tool: 'string',
  args: 'map<string, dyn>',
  host: 'string',
  tenant: 'string',
  hook: 'string',
  claims: 'map<string, dyn>',
  session_id: 'string',
  agent_id: 'string',
  now: 'google.protobuf.Timestamp',
  new_args: 'map<string, dyn>',
  call: 'map<string, dyn>',
};
