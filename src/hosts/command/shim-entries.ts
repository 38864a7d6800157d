/**
 * What every command-hook host's setup printer is given: the `hookgate hook` command line for each
 * event it registers, already built (src/hosts/command/setup.node.ts), and the seconds the host
 * waits for it. Printers are pure; none writes a token anywhere: the host passes its environment
 * (HOOKGATE_TOKEN) to the command.
 */
export interface ShimEntry {
  /** The full command line the host runs (shell words). */
  command: string;
  /** The shim's own deadline, ms (`--timeout-ms`). */
  deadlineMs: number;
  /** The host's timeout for the command, seconds: above the shim's deadline, so the shim decides. */
  hostTimeoutS: number;
}

/** Which guarding events a hook's modes ask for, each with its entry. */
export interface ShimEvents {
  /** before_tool (tool mode): the host's pre-tool event. */
  beforeTool?: ShimEntry;
  /** after_tool (tool mode): the host's post-tool event, for a hook that sees results. */
  afterTool?: ShimEntry;
  /** approve_tool (approve mode), where the host has a separate permission event (Codex). */
  approve?: ShimEntry;
}
