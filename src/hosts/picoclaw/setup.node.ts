import { DEFAULT_APPROVAL_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../../bridge/options.js';
import type { HookRuntime } from '../../config/runtime.js';
import { hookRouteUrl } from '../shared/setup-common.node.js';

/** PicoClaw's default deadlines (`hooks.defaults`): per interceptor call, per approval. */
const PICOCLAW_INTERCEPTOR_MS = 5000;
const PICOCLAW_APPROVAL_MS = 60_000;
/**
 * How much later than the hook's deadline the bridge gives up, and PicoClaw after the bridge. The
 * bridge's own failure answer is the hook's anyway (`--on-failure` follows `on_failure`, approvals
 * are denied), so the margins only let the gateway's answer, which names the hook, arrive first.
 */
const BRIDGE_MARGIN_MS = 500;

export interface PicoClawSetup {
  /** The blocks to merge into PicoClaw's config.json. */
  config: Record<string, unknown>;
  /** Deadlines PicoClaw's `hooks.defaults` must be raised to (the bridge's then fit under them). */
  raise: { interceptor_timeout_ms?: number; approval_timeout_ms?: number };
}

/**
 * PicoClaw's `hooks.processes` entry running `hookgate bridge` for one hook: the intercepts its
 * modes cover (before_llm and before_tool each switch on the pair), `observe: ["*"]` for the
 * observe mode, `--on-failure closed` for a hook that fails closed. The bridge's deadlines stay at
 * their defaults (under PicoClaw's) unless the hook's own deadline is longer; then PicoClaw's
 * defaults must be raised too, and `raise` says to what. No token: the bridge
 * inherits PicoClaw's environment, so HOOKGATE_TOKEN exported there never lands in config.json.
 *
 * For a hook with `tools`, also the `tools.mcp` server serving them from the hook's MCP route
 * (PicoClaw puts back the original tool list after before_llm, so MCP is how they reach the
 * model). PicoClaw expands nothing in its config: its Authorization header is a placeholder to fill.
 */
export function picoclawSetup(
  hook: HookRuntime,
  baseUrl: string,
  opts: { command?: readonly string[] } = {},
): PicoClawSetup {
  const wsUrl = hookRouteUrl(baseUrl.replace(/^http/, 'ws'), hook, 'ws');
  const command = [...(opts.command ?? ['hookgate']), 'bridge', '--url', wsUrl];
  if (hook.onFailure === 'closed') command.push('--on-failure', 'closed');
  const raise: PicoClawSetup['raise'] = {};
  if (hook.timeoutMs > DEFAULT_TIMEOUT_MS) {
    const timeout = hook.timeoutMs + BRIDGE_MARGIN_MS;
    command.push('--timeout-ms', String(timeout));
    if (timeout + BRIDGE_MARGIN_MS > PICOCLAW_INTERCEPTOR_MS)
      raise.interceptor_timeout_ms = timeout + BRIDGE_MARGIN_MS;
  }
  if (hook.modes.has('approve') && hook.approvalTimeoutMs > DEFAULT_APPROVAL_TIMEOUT_MS) {
    const timeout = hook.approvalTimeoutMs + BRIDGE_MARGIN_MS;
    command.push('--approval-timeout-ms', String(timeout));
    if (timeout + BRIDGE_MARGIN_MS > PICOCLAW_APPROVAL_MS)
      raise.approval_timeout_ms = timeout + BRIDGE_MARGIN_MS;
  }
  const intercept: string[] = [];
  if (hook.modes.has('llm')) intercept.push('before_llm');
  if (hook.modes.has('tool')) intercept.push('before_tool');
  if (hook.modes.has('approve')) intercept.push('approve_tool');
  const entry: Record<string, unknown> = { enabled: true, priority: 100, command };
  if (intercept.length > 0) entry.intercept = intercept;
  if (hook.modes.has('observe')) entry.observe = ['*'];
  const config: Record<string, unknown> = {
    hooks: { enabled: true, processes: { [hook.name]: entry } },
  };
  if (hook.tools.size > 0) {
    config.tools = {
      mcp: {
        enabled: true,
        servers: {
          hookgate: {
            enabled: true,
            type: 'http',
            url: hookRouteUrl(baseUrl, hook, 'mcp'),
            headers: { Authorization: 'Bearer <the hook token>' },
          },
        },
      },
    };
  }
  return { config, raise };
}
