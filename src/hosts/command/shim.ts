/**
 * What `hookgate hook` needs to know of a host to be its fail-closed party: how to block a call
 * with a reason the model reads, on that host. Each host's is a `shim.ts` in its folder that imports
 * nothing, since the shim runs once per tool call and loads only these (test/node/cli/commands).
 */
export interface ShimOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ShimHost {
  /** The `--host` value, and the gateway route segment unless `route` says another. */
  dialect: string;
  /** The route segment, where the host shares another's route (Claude Code's command hooks). */
  route?: string;
  /** The host's own hook timeout when none is configured: a deadline at or past it is warned about. */
  hostTimeoutMs: number;
  /** Blocks the call the host is about to run, `input` being the host's stdin as read. */
  blocked(reason: string, input: string): ShimOutput;
}
