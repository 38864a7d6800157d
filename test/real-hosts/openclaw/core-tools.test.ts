import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENCLAW_CORE_TOOLS } from '../../../src/hosts/openclaw/core-tools.js';
import { OPENCLAW_ENTRY, OPENCLAW_VERSION, openclawInstalled } from './run-openclaw.js';

/**
 * hookgate's list of the names OpenClaw keeps for its own tools (which setup openclaw refuses and
 * the plugin does not register) against the installed OpenClaw's own sources: its core tool
 * catalog, the names its agent reserves and its tool policy's aliases. A new pinned OpenClaw with
 * another list fails here.
 */
const dist = join(dirname(OPENCLAW_ENTRY), 'dist');
const why = openclawInstalled
  ? ''
  : ` (skipped: OpenClaw ${OPENCLAW_VERSION} is not installed at ${OPENCLAW_ENTRY} (bash scripts/hosts/install.sh))`;

/** The text of the one bundled file whose name starts with `prefix` and that holds `marker`. */
function source(prefix: string, marker: string): string {
  for (const file of readdirSync(dist)) {
    if (!file.startsWith(prefix) || !file.endsWith('.mjs')) continue;
    const text = readFileSync(join(dist, file), 'utf8');
    if (text.includes(marker)) return text;
  }
  throw new Error(`no ${prefix}*.mjs in ${dist} holds ${marker}`);
}

/** The text between `start` and the first `end` after it. */
function block(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  return text.slice(from, text.indexOf(end, from));
}

describe.skipIf(!openclawInstalled)(`OpenClaw ${OPENCLAW_VERSION}: the tool names it keeps${why}`, () => {
  it('are exactly hookgate’s list (catalog, reserved names, aliases)', () => {
    const catalog = block(
      source('tool-catalog-', 'CORE_TOOL_DEFINITIONS'),
      'const CORE_TOOL_DEFINITIONS = [',
      '\n];',
    );
    const automations = /AUTOMATIONS_TOOL_NAME = "([^"]+)"/.exec(
      source('automations-tool-name-', 'AUTOMATIONS_TOOL_NAME'),
    )![1];
    const core = [...catalog.matchAll(/\bid: (?:"([^"]+)"|AUTOMATIONS_TOOL_NAME)/g)].map(
      (m) => m[1] ?? automations,
    );
    const reserved = [
      ...block(
        source('builtin-openclaw-', 'AGENT_RESERVED_TOOL_NAMES ='),
        'const AGENT_RESERVED_TOOL_NAMES = [',
        '];',
      ).matchAll(/"([^"]+)"/g),
    ].map((m) => m[1]);
    const aliases = [
      ...block(
        source('tool-policy-shared-', 'TOOL_NAME_ALIASES'),
        'const TOOL_NAME_ALIASES =',
        ']);',
      ).matchAll(/\["([^"]+)", "[^"]+"\]/g),
    ].map((m) => m[1]);
    expect(core.length).toBeGreaterThan(50);
    expect(reserved).toContain('bash');
    expect(aliases).toContain('cron');
    expect(new Set(OPENCLAW_CORE_TOOLS)).toEqual(new Set([...core, ...reserved, ...aliases]));
  });
});
