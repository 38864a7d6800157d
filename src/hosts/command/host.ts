import type { CallMethod } from '../../protocol/methods.js';

/**
 * What every host that runs a command per hook event (Codex, Copilot CLI, Gemini CLI; Devin,
 * Goose, Continue and Factory next) gives the gateway: a translation of its stdin JSON onto one
 * hook call and of the policy-checked answer back into what the command prints. The route
 * (src/hosts/command/route.ts) and the shim (`hookgate hook`) are shared; a new host is one
 * folder in src/hosts with its request, response, shim and setup, and one entry in COMMAND_HOSTS.
 */

export type CommandHostRequest =
  | {
      kind: 'call';
      /** The host's own event name. */
      event: string;
      method: CallMethod;
      params: Record<string, unknown>;
      /** The tool input as the host sent it, to complete a rewrite. */
      toolInput?: Record<string, unknown>;
      /**
       * The event is also the host's approval (Copilot's preToolUse `allow` skips its permission
       * check): the route then asks the hook's approve_tool too, and only `approved: true` within
       * approve_tools becomes the host's allow.
       */
      alsoApproves?: boolean;
    }
  | { kind: 'event'; event: string; params: Record<string, unknown> }
  | { kind: 'invalid'; why: string };

export type CommandHostCall = Extract<CommandHostRequest, { kind: 'call' }>;

export interface CommandRequestOptions {
  /** Becomes a runtime event's id. */
  requestId: string;
  /** ISO time for a runtime event. */
  now: string;
  /** The hook's own MCP server as the host names it, whose tools the hook knows by bare name. */
  ownMcpServer: string;
}

export interface CommandHost {
  /** The route segment (…/hooks/{hook}/<dialect>), the audit label and `hookgate hook --host`. */
  dialect: string;
  /** The host's name in messages. */
  label: string;
  /** The host has an approval of its own that a verdict can skip (see HostTraits.hostApproves). */
  hostApproves: boolean;
  toHookRequest(body: unknown, opts: CommandRequestOptions): CommandHostRequest;
  /**
   * The policy-checked answer (and, for an event that also approves, the approve_tool answer) in
   * the host's shape. `{}` is "no objection": the shim prints nothing.
   */
  toHostAnswer(
    request: CommandHostCall,
    answer: Record<string, unknown>,
    approval?: Record<string, unknown>,
  ): Record<string, unknown>;
}
