import type { HookRuntime } from '../../config/runtime.js';
import { hermesMcpServerName as serverNameOf } from './index.js';
import { GATEWAY_MARGIN_MS, hookRouteUrl, TOKEN_ENV } from '../shared/setup-common.node.js';

/** Hermes events that carry nothing a hook could decide; observers get them as runtime events. */
const OBSERVED_EVENTS = ['post_llm_call', 'on_session_start', 'on_session_end', 'subagent_stop'] as const;

/**
 * The profile `config.yaml` `hooks:` block that runs `hookgate hermes-hook` for a hookgate hook's
 * events. Only the events its modes cover. `--timeout-ms` lets the gateway answer first (the hook's
 * deadline plus a margin); Hermes's `timeout` (whole seconds) sits above that so the command always
 * ends by itself. `fail_closed: true` and `--fail-closed` on pre_tool_call when the hook fails
 * closed (Hermes otherwise goes on when the gateway cannot be reached); Hermes reads it there only.
 * `noModify` adds `--no-modify` for Hermes releases without `modify` (0.19 and older).
 * Strings are JSON-quoted, which YAML reads as double-quoted scalars.
 */
export function hermesHooksYaml(
  hook: HookRuntime,
  baseUrl: string,
  opts: { command?: string; noModify?: boolean } = {},
): string {
  const command = opts.command ?? 'hookgate';
  const url = hookRouteUrl(baseUrl, hook);
  const timeoutMs = hook.timeoutMs + GATEWAY_MARGIN_MS;
  const timeout = Math.min(300, Math.ceil(timeoutMs / 1000) + 2);
  const events: string[] = [];
  if (hook.modes.has('llm')) events.push('pre_llm_call');
  if (hook.modes.has('tool')) events.push('pre_tool_call', 'post_tool_call');
  if (hook.modes.has('observe')) events.push(...OBSERVED_EVENTS);
  const lines = ['hooks:'];
  for (const event of events) {
    const closed = event === 'pre_tool_call' && hook.onFailure === 'closed';
    const argv = [command, 'hermes-hook', '--url', url, '--timeout-ms', String(timeoutMs)];
    if (closed) argv.push('--fail-closed');
    if (opts.noModify && event === 'pre_tool_call') argv.push('--no-modify');
    lines.push(`  ${event}:`);
    lines.push(`    - command: ${JSON.stringify(argv.join(' '))}`);
    lines.push(`      timeout: ${timeout}`);
    if (closed) lines.push('      fail_closed: true');
  }
  if (events.length === 0) lines.push('  {}');
  return `${lines.join('\n')}\n`;
}

/**
 * Hermes's MCP server name for a hook: its tools reach the model as `mcp__<server>__<tool>`, and
 * the Hermes route takes that prefix off (one name, kept by the dialect).
 */
export function hermesMcpServerName(hook: HookRuntime): string {
  return serverNameOf(hook.name);
}

/**
 * The `config.yaml` `mcp_servers:` block giving Hermes the hook's own tools from the hook's MCP
 * route (Hermes's shell hooks cannot answer a tool; an MCP server can, with the hook's `respond`).
 * Empty for a hook without tools. The token stays in the environment: Hermes expands
 * `${HOOKGATE_TOKEN}` in the header when it connects. `timeout` (seconds) sits above the hook's
 * deadline so the gateway's failure answer arrives first.
 */
export function hermesMcpYaml(hook: HookRuntime, baseUrl: string): string {
  if (hook.tools.size === 0) return '';
  const timeout = Math.ceil((hook.timeoutMs + GATEWAY_MARGIN_MS) / 1000) + 2;
  return [
    'mcp_servers:',
    `  ${hermesMcpServerName(hook)}:`,
    `    url: ${JSON.stringify(hookRouteUrl(baseUrl, hook, 'mcp'))}`,
    '    headers:',
    `      Authorization: ${JSON.stringify(`Bearer \${${TOKEN_ENV}}`)}`,
    `    timeout: ${timeout}`,
    '',
  ].join('\n');
}
