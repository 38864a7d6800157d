/**
 * What the policy needs to know about each host a call can come from (HostTraits), by the dialect
 * label its records and audit lines carry. The routes build their CallOrigin from this, and
 * `hookgate replay` re-decides a recorded call with it: one table, so a replayed decision is made
 * under the same traits as the call it replays.
 */
import { DIALECT as CLAUDE_CODE } from './claude-code/index.js';
import { COMMAND_HOSTS } from './command/hosts.js';
import { DIALECT as HERMES } from './hermes/index.js';
import { DIALECT as OPENCLAW } from './openclaw/index.js';
import type { HostTraits } from '../policy/index.js';

/** The hosts with a route of their own, by label; the command hosts carry theirs (CommandHost). */
export const ROUTE_HOST_TRAITS = {
  // The native routes: PicoClaw's approve_tool is its only approval, and it applies rewrites whole.
  picoclaw: {},
  // MCP tools/call is asked as before_tool on the hook's own tool; no host approval to skip.
  mcp: {},
  // PermissionRequest `allow` skips Claude Code's own permission prompt.
  [CLAUDE_CODE]: { hostApproves: true },
  // OpenClaw applies its tool policy to a plugin's call whatever the hook says.
  [OPENCLAW]: { hostApproves: false },
  // Hermes has no approval a verdict could skip, and merges a rewrite into the arguments.
  [HERMES]: { hostApproves: false, mergesArguments: true },
} as const satisfies Record<string, HostTraits>;

/** Every dialect label a record can carry, with its host's traits. */
export const HOST_TRAITS: ReadonlyMap<string, Readonly<HostTraits>> = new Map<string, HostTraits>([
  ...Object.entries(ROUTE_HOST_TRAITS),
  ...COMMAND_HOSTS.map((h): [string, HostTraits] => [h.dialect, { hostApproves: h.hostApproves }]),
]);

/** The traits of the host behind `dialect`, or undefined for a label no route of this hookgate uses. */
export function hostTraitsOf(dialect: string): Readonly<HostTraits> | undefined {
  return HOST_TRAITS.get(dialect);
}
