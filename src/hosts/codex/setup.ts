import type { ShimEntry, ShimEvents } from '../command/shim-entries.js';

/**
 * The `config.toml` hooks that run `hookgate hook --host codex`, trusted. Codex skips a
 * non-managed hook silently unless `[hooks.state."<file>:<event>:<group>:<handler>"]` holds
 * `trusted_hash = "sha256:<hex>"`, the hex being the sha256 of the compact, key-sorted JSON of
 * `{event_name, matcher, hooks: [{type, command, timeout, async}]}` (checked on Codex 0.169.0: a
 * wrong hash, or none, and the hook never runs). Any change to the command, matcher or timeout
 * invalidates it, so the block is printed whole. `configFile` is the absolute path of the
 * config.toml it goes in (the trust key names it); the groups are numbered as printed, so they
 * must be that file's only hooks of their events.
 */
export const CODEX_HOOK_EVENTS = [
  ['beforeTool', 'PreToolUse', 'pre_tool_use'],
  ['approve', 'PermissionRequest', 'permission_request'],
  ['afterTool', 'PostToolUse', 'post_tool_use'],
] as const;

/** JSON with every object's keys sorted, compact: what Codex hashes. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (typeof v === 'object' && v !== null)
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Codex's trust hash of one single-handler group. */
export function codexTrustHash(eventKey: string, matcher: string, entry: ShimEntry): Promise<string> {
  const definition = {
    event_name: eventKey,
    matcher,
    hooks: [{ type: 'command', command: entry.command, timeout: entry.hostTimeoutS, async: false }],
  };
  return sha256Hex(sortedJson(definition)).then((hex) => `sha256:${hex}`);
}

const toml = (s: string) => JSON.stringify(s);

/** One `[[hooks.<Event>]]` group running `entry`, matching every tool; ends with a newline. */
export function codexGroupToml(event: string, entry: ShimEntry): string {
  return [
    `[[hooks.${event}]]`,
    'matcher = "*"',
    `[[hooks.${event}.hooks]]`,
    'type = "command"',
    `command = ${toml(entry.command)}`,
    `timeout = ${entry.hostTimeoutS}`,
    '',
  ].join('\n');
}

/** The trust entry of the hook at `trustKey` (`<file>:<event_key>:<group>:<handler>`); ends with a newline. */
export function codexTrustToml(trustKey: string, hash: string): string {
  return [`[hooks.state.${toml(trustKey)}]`, `trusted_hash = ${toml(hash)}`, ''].join('\n');
}

export async function codexConfigToml(events: ShimEvents, configFile: string): Promise<string> {
  const groups: string[] = [];
  const trust: string[] = [];
  for (const [field, event, key] of CODEX_HOOK_EVENTS) {
    const entry = events[field];
    if (!entry) continue;
    groups.push(codexGroupToml(event, entry));
    trust.push(codexTrustToml(`${configFile}:${key}:0:0`, await codexTrustHash(key, '*', entry)));
  }
  return [...groups, ...trust].join('\n');
}
