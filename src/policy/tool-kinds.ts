/**
 * Tool kinds: one table that says which tool of which host is "the shell", "the file reader",
 * "the file writer" or "the web fetcher", and where in its arguments the command line, the file
 * paths and the URL are. A tenant's rule written against a kind ("no `rm -rf` in any shell tool")
 * then holds on every host, though each host names its tools and argument keys differently.
 *
 * Pure and web-standard: it runs in the gateway on Node and in Cloudflare workerd alike.
 * See docs/tool-kinds.md for the table, what is normalised and the known gaps.
 */

/** Every kind, as a rule's `kind` names them (src/config/rules.ts). */
export const TOOL_KIND_NAMES = ['shell', 'file_read', 'file_write', 'web_fetch'] as const;
export type ToolKind = (typeof TOOL_KIND_NAMES)[number];

/** What a kinded tool call does, in host-independent terms. Empty values mean "not there or not safely readable". */
export interface KindedCall {
  kind: ToolKind;
  /** The shell command line as one string; "" when not a shell tool or not readable. */
  command: string;
  /** Every file path the call reads or writes, as the model wrote them (not resolved); [] when none. */
  paths: string[];
  /** The URL fetched; several URLs are joined with single spaces; "" when none. */
  url: string;
}

/** Where a fact in the table was checked. */
export type Evidence = 'captured exchange' | 'host source';

export interface ToolKindEntry {
  readonly kind: ToolKind;
  /** Dialect label: 'picoclaw' | 'claude-code' | 'openclaw' | 'hermes' | 'codex' | 'copilot' | 'gemini'. */
  readonly host: string;
  /** The tool name exactly as the host sends it to its hooks (case-sensitive, as the hosts match). */
  readonly tool: string;
  /** Argument key holding the command line (a string, or an argv array). */
  readonly commandKey?: string;
  /** Argument keys each holding one path or a list of paths. */
  readonly pathKeys?: readonly string[];
  /** Argument keys holding patch text; the paths come from its file header lines. */
  readonly patchKeys?: readonly string[];
  /** A freeform tool: the arguments may arrive as the bare patch text. */
  readonly patchMayBeBareText?: boolean;
  /** Argument key holding one URL. */
  readonly urlKey?: string;
  /** Argument key holding a list of URLs. */
  readonly urlListKey?: string;
  /** Argument key holding free text with URLs in it (the host fetches every token containing "://"). */
  readonly urlsInTextKey?: string;
  /** Where the name and argument keys were checked. */
  readonly evidence: Evidence;
  /** What the evidence was, in a few words. */
  readonly note: string;
}

function entry(e: ToolKindEntry): ToolKindEntry {
  return Object.freeze({ ...e, pathKeys: freezeList(e.pathKeys), patchKeys: freezeList(e.patchKeys) });
}

function freezeList(list: readonly string[] | undefined): readonly string[] | undefined {
  return list === undefined ? undefined : Object.freeze([...list]);
}

/** The one table. Rendered in docs/tool-kinds.md; a test keeps the two in step. */
export const TOOL_KINDS: readonly ToolKindEntry[] = Object.freeze([
  // PicoClaw: tools in pkg/tools (shell.go, fs/filesystem.go, fs/edit.go, integration/web.go).
  entry({
    kind: 'shell',
    host: 'picoclaw',
    tool: 'exec',
    commandKey: 'command',
    evidence: 'captured exchange',
    note: 'protocol fixtures: {"action":"run","command":…}',
  }),
  entry({
    kind: 'file_read',
    host: 'picoclaw',
    tool: 'read_file',
    pathKeys: ['path'],
    evidence: 'captured exchange',
    note: 'protocol fixtures: {"path":…}',
  }),
  entry({
    kind: 'file_write',
    host: 'picoclaw',
    tool: 'write_file',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'fs/filesystem.go WriteFileTool',
  }),
  entry({
    kind: 'file_write',
    host: 'picoclaw',
    tool: 'edit_file',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'fs/edit.go EditFileTool',
  }),
  entry({
    kind: 'file_write',
    host: 'picoclaw',
    tool: 'append_file',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'fs/edit.go AppendFileTool',
  }),
  entry({
    kind: 'web_fetch',
    host: 'picoclaw',
    tool: 'web_fetch',
    urlKey: 'url',
    evidence: 'host source',
    note: 'integration/web.go WebFetchTool',
  }),

  // Claude Code: sdk-tools.d.ts input types; the binary lists Bash, Monitor and PowerShell as its shell tools.
  entry({
    kind: 'shell',
    host: 'claude-code',
    tool: 'Bash',
    commandKey: 'command',
    evidence: 'captured exchange',
    note: 'PreToolUse tool_input {"command":…}',
  }),
  entry({
    kind: 'shell',
    host: 'claude-code',
    tool: 'Monitor',
    commandKey: 'command',
    evidence: 'host source',
    note: 'MonitorInput.command ("Shell command or script")',
  }),
  entry({
    kind: 'shell',
    host: 'claude-code',
    tool: 'PowerShell',
    commandKey: 'command',
    evidence: 'host source',
    note: 'shell tool list ["Bash","Monitor","PowerShell"]',
  }),
  entry({
    kind: 'file_read',
    host: 'claude-code',
    tool: 'Read',
    pathKeys: ['file_path'],
    evidence: 'host source',
    note: 'FileReadInput.file_path',
  }),
  entry({
    kind: 'file_write',
    host: 'claude-code',
    tool: 'Write',
    pathKeys: ['file_path'],
    evidence: 'host source',
    note: 'FileWriteInput.file_path',
  }),
  entry({
    kind: 'file_write',
    host: 'claude-code',
    tool: 'Edit',
    pathKeys: ['file_path'],
    evidence: 'host source',
    note: 'FileEditInput.file_path',
  }),
  entry({
    kind: 'file_write',
    host: 'claude-code',
    tool: 'NotebookEdit',
    pathKeys: ['notebook_path'],
    evidence: 'host source',
    note: 'NotebookEditInput.notebook_path',
  }),
  entry({
    kind: 'web_fetch',
    host: 'claude-code',
    tool: 'WebFetch',
    urlKey: 'url',
    evidence: 'host source',
    note: 'WebFetchInput.url',
  }),

  // OpenClaw: the tool schemas are in the captured llm_input / before_agent_run bodies.
  entry({
    kind: 'shell',
    host: 'openclaw',
    tool: 'exec',
    commandKey: 'command',
    evidence: 'captured exchange',
    note: 'before_tool_call params {"command":…}',
  }),
  entry({
    kind: 'file_read',
    host: 'openclaw',
    tool: 'read',
    pathKeys: ['path'],
    evidence: 'captured exchange',
    note: 'tool schema: path required',
  }),
  entry({
    kind: 'file_write',
    host: 'openclaw',
    tool: 'write',
    pathKeys: ['path'],
    evidence: 'captured exchange',
    note: 'tool schema: path, content',
  }),
  entry({
    kind: 'file_write',
    host: 'openclaw',
    tool: 'edit',
    pathKeys: ['path'],
    evidence: 'captured exchange',
    note: 'tool schema: path, edits',
  }),
  entry({
    kind: 'file_write',
    host: 'openclaw',
    tool: 'apply_patch',
    patchKeys: ['input'],
    evidence: 'captured exchange',
    note: 'tool schema: input (the patch)',
  }),
  entry({
    kind: 'web_fetch',
    host: 'openclaw',
    tool: 'web_fetch',
    urlKey: 'url',
    evidence: 'captured exchange',
    note: 'tool schema: url required',
  }),

  // Hermes: tools/terminal_tool.py, tools/file_tools.py, tools/web_tools.py.
  entry({
    kind: 'shell',
    host: 'hermes',
    tool: 'terminal',
    commandKey: 'command',
    evidence: 'host source',
    note: 'terminal_tool.py schema: command',
  }),
  entry({
    kind: 'file_read',
    host: 'hermes',
    tool: 'read_file',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'file_tools.py schema: path',
  }),
  entry({
    kind: 'file_write',
    host: 'hermes',
    tool: 'write_file',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'file_tools.py schema: path, content',
  }),
  entry({
    kind: 'file_write',
    host: 'hermes',
    tool: 'patch',
    pathKeys: ['path'],
    patchKeys: ['patch'],
    evidence: 'host source',
    note: 'file_tools.py: mode replace (path) or patch (V4A text)',
  }),
  entry({
    kind: 'web_fetch',
    host: 'hermes',
    tool: 'web_extract',
    urlListKey: 'urls',
    evidence: 'host source',
    note: 'web_tools.py schema: urls (array, max 5)',
  }),

  // Codex: hooks see `Bash` for exec_command and `apply_patch` with {"command": <patch>}.
  entry({
    kind: 'shell',
    host: 'codex',
    tool: 'Bash',
    commandKey: 'command',
    evidence: 'captured exchange',
    note: 'PreToolUse tool_input {"command":…}',
  }),
  entry({
    kind: 'file_write',
    host: 'codex',
    tool: 'apply_patch',
    patchKeys: ['command'],
    evidence: 'host source',
    note: 'codex-rs HookToolName::apply_patch, tool_input {"command": patch}',
  }),

  // Copilot CLI: the bundled cli-main.js and its native runtime define the tools.
  entry({
    kind: 'shell',
    host: 'copilot',
    tool: 'bash',
    commandKey: 'command',
    evidence: 'captured exchange',
    note: 'preToolUse toolArgs {"command":…}',
  }),
  entry({
    kind: 'file_read',
    host: 'copilot',
    tool: 'view',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'view schema: path, view_range',
  }),
  entry({
    kind: 'file_write',
    host: 'copilot',
    tool: 'create',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'create schema: path, file_text',
  }),
  entry({
    kind: 'file_write',
    host: 'copilot',
    tool: 'edit',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'edit schema: path, old_str, new_str',
  }),
  entry({
    kind: 'file_write',
    host: 'copilot',
    tool: 'str_replace_editor',
    pathKeys: ['path'],
    evidence: 'host source',
    note: 'command view, create, str_replace or insert; path; counted as a writer',
  }),
  entry({
    kind: 'file_write',
    host: 'copilot',
    tool: 'apply_patch',
    patchKeys: ['input'],
    patchMayBeBareText: true,
    evidence: 'host source',
    note: 'FREEFORM tool (bare patch text); hook shape not captured',
  }),
  entry({
    kind: 'web_fetch',
    host: 'copilot',
    tool: 'web_fetch',
    urlKey: 'url',
    evidence: 'host source',
    note: 'web_fetch: url (string, required)',
  }),

  // Gemini CLI: the bundle's *_TOOL_NAME constants and tool declarations.
  entry({
    kind: 'shell',
    host: 'gemini',
    tool: 'run_shell_command',
    commandKey: 'command',
    evidence: 'captured exchange',
    note: 'BeforeTool tool_input {"command":…,"description":…}',
  }),
  entry({
    kind: 'file_read',
    host: 'gemini',
    tool: 'read_file',
    pathKeys: ['file_path'],
    evidence: 'host source',
    note: 'READ_FILE_TOOL_NAME, required file_path',
  }),
  entry({
    kind: 'file_read',
    host: 'gemini',
    tool: 'read_many_files',
    pathKeys: ['include'],
    evidence: 'host source',
    note: 'READ_MANY_FILES_TOOL_NAME, include: paths or globs',
  }),
  entry({
    kind: 'file_write',
    host: 'gemini',
    tool: 'write_file',
    pathKeys: ['file_path'],
    evidence: 'host source',
    note: 'WRITE_FILE_TOOL_NAME, required file_path, content',
  }),
  entry({
    kind: 'file_write',
    host: 'gemini',
    tool: 'replace',
    pathKeys: ['file_path'],
    evidence: 'host source',
    note: 'EDIT_TOOL_NAME = "replace", file_path',
  }),
  entry({
    kind: 'web_fetch',
    host: 'gemini',
    tool: 'web_fetch',
    urlKey: 'url',
    urlsInTextKey: 'prompt',
    evidence: 'host source',
    note: 'URLs embedded in prompt (or an experimental url)',
  }),
]);

/**
 * Lookup by host and tool. A Map, not an object literal: a tool named "constructor" or
 * "__proto__" must find nothing rather than Object.prototype's members.
 */
const ENTRY_BY_HOST_AND_TOOL: ReadonlyMap<string, ToolKindEntry> = new Map(
  TOOL_KINDS.map((e) => [lookupKey(e.host, e.tool), e]),
);

function lookupKey(host: string, tool: string): string {
  // NUL cannot appear in a host label, so "a" + "b\0c" and "a\0b" + "c" cannot collide.
  return `${host}\u0000${tool}`;
}

export function toolKindEntry(host: unknown, tool: unknown): ToolKindEntry | undefined {
  if (typeof host !== 'string' || typeof tool !== 'string') return undefined;
  return ENTRY_BY_HOST_AND_TOOL.get(lookupKey(host, tool));
}

/**
 * The kind of a host's tool, or undefined when the tool has none (including every `mcp` tool:
 * the hook's own tools served over MCP are not shells, readers, writers or fetchers of the host).
 */
export function kindOf(host: string, tool: string): ToolKind | undefined {
  return toolKindEntry(host, tool)?.kind;
}

/**
 * The call in host-independent terms, or undefined when the tool has no kind. Never throws:
 * whatever cannot be read safely (missing, wrong type, a throwing getter) is left empty.
 */
export function kindedCall(host: string, tool: string, args: unknown): KindedCall | undefined {
  const e = toolKindEntry(host, tool);
  if (e === undefined) return undefined;
  try {
    return {
      kind: e.kind,
      command: e.commandKey === undefined ? '' : commandLine(ownValue(args, e.commandKey)),
      paths: pathsOf(e, args),
      url: urlsOf(e, args).join(' '),
    };
  } catch {
    // Only reachable through exotic objects (proxies, getters); JSON from the wire never gets here.
    return { kind: e.kind, command: '', paths: [], url: '' };
  }
}

/** An own property of a plain object; never an inherited one, never a property of an array. */
function ownValue(args: unknown, key: string): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  return Object.hasOwn(args, key) ? (args as Record<string, unknown>)[key] : undefined;
}

const SHELLS_WITH_SCRIPT_FLAG = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash']);

/**
 * The command line as one string. A string is taken as it is. An argv array of strings becomes,
 * for `<shell> [options] -c <script> [args…]`, the script followed by any further arguments (they
 * become $0, $1… and can carry the command, so they stay visible); otherwise the argv joined with
 * single spaces. Anything else (numbers, objects, arrays with non-strings) is "".
 */
export function commandLine(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value) || value.length === 0) return '';
  if (!value.every((part) => typeof part === 'string')) return '';
  const argv = value as string[];
  return (shellScriptAndArgs(argv) ?? argv).join(' ');
}

function shellScriptAndArgs(argv: readonly string[]): string[] | undefined {
  if (!SHELLS_WITH_SCRIPT_FLAG.has(basename(argv[0]!))) return undefined;
  let sawScriptFlag = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return sawScriptFlag ? argv.slice(i + 1) : undefined;
    if (!arg.startsWith('-') && !arg.startsWith('+')) return sawScriptFlag ? argv.slice(i) : undefined;
    // A short-option cluster such as -c, -lc, -xc or -ec names the script flag.
    if (!arg.startsWith('--') && arg.slice(1).includes('c')) sawScriptFlag = true;
  }
  return undefined;
}

function basename(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return path.slice(slash + 1);
}

function pathsOf(e: ToolKindEntry, args: unknown): string[] {
  const paths: string[] = [];
  for (const key of e.pathKeys ?? []) paths.push(...stringOrStrings(ownValue(args, key)));
  for (const key of e.patchKeys ?? []) {
    const patch = ownValue(args, key);
    if (typeof patch === 'string') paths.push(...pathsInPatch(patch));
  }
  if (e.patchMayBeBareText === true && typeof args === 'string') paths.push(...pathsInPatch(args));
  return unique(paths);
}

/** A string, or the strings of a list; empty strings and non-strings are skipped, never coerced. */
function stringOrStrings(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string' && v !== '');
}

/**
 * The file header keywords of the patch formats in use: Codex's and OpenClaw's
 * ("*** Add File: p", "*** Update File: p", "*** Delete File: p", "*** Move to: p") and Hermes's
 * V4A dialect, which also writes "*** Move File: a -> b" and allows extra spaces. Matching is more
 * lenient than any host's parser on purpose: a path reported that the host would reject costs
 * nothing, a path missed would let a write past a rule.
 */
const PATCH_HEADER = /^(Add|Update|Delete|Move)\s+(File|to):/;

/** Every path named by a patch's file header lines, in order. */
export function pathsInPatch(patch: string): string[] {
  const paths: string[] = [];
  for (const rawLine of patch.split(/\r\n|\n|\r/)) {
    const line = rawLine.trim();
    if (!line.startsWith('***')) continue;
    const header = line.slice(3).trimStart();
    const match = PATCH_HEADER.exec(header);
    if (match === null) continue;
    const [prefix, verb, noun] = match;
    if (noun === 'to' && verb !== 'Move') continue;
    const rest = header.slice(prefix!.length).trim();
    if (verb === 'Move' && noun === 'File') paths.push(...splitMove(rest));
    else if (rest !== '') paths.push(rest);
  }
  return paths;
}

/** "a -> b" as [a, b]; indexOf rather than a regex, so a long line costs linear time. */
function splitMove(rest: string): string[] {
  const arrow = rest.indexOf('->');
  const parts = arrow < 0 ? [rest] : [rest.slice(0, arrow), rest.slice(arrow + 2)];
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function urlsOf(e: ToolKindEntry, args: unknown): string[] {
  const urls: string[] = [];
  if (e.urlKey !== undefined) {
    const url = ownValue(args, e.urlKey);
    if (typeof url === 'string') urls.push(url);
  }
  if (e.urlListKey !== undefined) urls.push(...stringOrStrings(ownValue(args, e.urlListKey)));
  if (e.urlsInTextKey !== undefined) {
    const text = ownValue(args, e.urlsInTextKey);
    if (typeof text === 'string') urls.push(...urlTokens(text));
  }
  return unique(urls).filter((u) => u.trim() !== '');
}

/** The tokens Gemini's web_fetch treats as URLs: whitespace-separated tokens containing "://". */
function urlTokens(text: string): string[] {
  return text.split(/\s+/).filter((token) => token.includes('://'));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
