import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CodexMergeRefused, mergeCodexConfig } from '../../../src/hosts/codex/config-merge.js';
import { parseToml, TomlDate, TomlSyntaxError } from '../../../src/hosts/codex/toml.js';

const FILE = '/home/u/.codex/config.toml';
const CMD = 'hookgate hook --host codex --url http://gw:8787/v1/tenants/acme/hooks/guard --timeout-ms 5000';
const entry = (command = CMD, hostTimeoutS = 7) => ({ command, deadlineMs: 5000, hostTimeoutS });
const ours = (c: string) => c.includes('/hooks/guard ');

/** Codex's trust hash as its README describes it, computed independently of the code under test. */
function hash(event: string, command: string, timeout: number): string {
  const json = `{"event_name":${JSON.stringify(event)},"hooks":[{"async":false,"command":${JSON.stringify(command)},"timeout":${timeout},"type":"command"}],"matcher":"*"}`;
  return `sha256:${createHash('sha256').update(json).digest('hex')}`;
}

/** A user's config.toml: settings, comments, another trusted hook, a profile after the hooks. */
const USER = `# my settings
model = "o3" # the model
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[shell_environment_policy]
set = { FOO = "bar" }

[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "my-linter --strict"
timeout = 30

[hooks.state."${FILE}:pre_tool_use:0:0"]
trusted_hash = "sha256:1111"

[profiles.fast]
model = "o4-mini"
`;

describe('mergeCodexConfig', () => {
  it("adds hookgate's groups after the user's, numbered after them, and keeps every other byte", async () => {
    const text = await mergeCodexConfig(USER, FILE, { beforeTool: entry(), afterTool: entry() }, ours);
    expect(text.startsWith(USER)).toBe(true);
    const data = parseToml(text).data as any;
    expect(data.hooks.PreToolUse).toHaveLength(2);
    expect(data.hooks.PreToolUse[0].hooks[0].command).toBe('my-linter --strict');
    expect(data.hooks.PreToolUse[1]).toEqual({
      matcher: '*',
      hooks: [{ type: 'command', command: CMD, timeout: 7n }],
    });
    expect(data.hooks.PostToolUse).toHaveLength(1);
    expect({ ...data.hooks.state }).toEqual({
      [`${FILE}:pre_tool_use:0:0`]: { trusted_hash: 'sha256:1111' },
      [`${FILE}:pre_tool_use:1:0`]: { trusted_hash: hash('pre_tool_use', CMD, 7) },
      [`${FILE}:post_tool_use:0:0`]: { trusted_hash: hash('post_tool_use', CMD, 7) },
    });
    expect(data.shell_environment_policy.set.FOO).toBe('bar');
    expect(data.profiles.fast.model).toBe('o4-mini');
  });

  it('is idempotent: the second run returns the same text', async () => {
    const events = { beforeTool: entry(), afterTool: entry(), approve: entry() };
    const once = await mergeCodexConfig(USER, FILE, events, ours);
    expect(await mergeCodexConfig(once, FILE, events, ours)).toBe(once);
  });

  it('replaces its own group in place (same number, new trust hash), wherever the gateway moved', async () => {
    const once = await mergeCodexConfig(USER, FILE, { beforeTool: entry() }, ours);
    const moved = CMD.replace('http://gw:8787', 'https://gw.example.com').replace('5000', '9000');
    const twice = await mergeCodexConfig(
      `${once}\n[tui]\nnotifications = true\n`,
      FILE,
      { beforeTool: entry(moved, 11) },
      ours,
    );
    const data = parseToml(twice).data as any;
    expect(data.hooks.PreToolUse.map((g: any) => g.hooks[0].command)).toEqual(['my-linter --strict', moved]);
    expect(data.hooks.PreToolUse[1].hooks[0].timeout).toBe(11n);
    expect(data.hooks.state[`${FILE}:pre_tool_use:1:0`].trusted_hash).toBe(hash('pre_tool_use', moved, 11));
    expect(Object.keys(data.hooks.state)).toHaveLength(2);
    expect(data.tui.notifications).toBe(true);
    expect(twice).not.toContain(CMD);
  });

  it('keeps other keys of its trust entry and adds a missing trusted_hash under its header', async () => {
    const old = `[[hooks.PreToolUse]]\nmatcher = "*"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "${CMD}"\ntimeout = 7\n\n[hooks.state."${FILE}:pre_tool_use:0:0"]\nenabled = true\n`;
    const text = await mergeCodexConfig(old, FILE, { beforeTool: entry() }, ours);
    expect((parseToml(text).data as any).hooks.state[`${FILE}:pre_tool_use:0:0`]).toEqual({
      enabled: true,
      trusted_hash: hash('pre_tool_use', CMD, 7),
    });
  });

  it('removes the group (and its trust) of an event the hook no longer has, when it is the last', async () => {
    const once = await mergeCodexConfig(USER, FILE, { beforeTool: entry(), afterTool: entry() }, ours);
    const text = await mergeCodexConfig(once, FILE, { beforeTool: entry() }, ours);
    const data = parseToml(text).data as any;
    expect(data.hooks.PostToolUse).toBeUndefined();
    expect(Object.keys(data.hooks.state)).toEqual([`${FILE}:pre_tool_use:0:0`, `${FILE}:pre_tool_use:1:0`]);
    expect(text.startsWith(USER)).toBe(true);
  });

  it('into an empty file: what setup prints', async () => {
    const text = await mergeCodexConfig('', FILE, { beforeTool: entry() }, ours);
    expect(text).toBe(
      `[[hooks.PreToolUse]]\nmatcher = "*"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(CMD)}\ntimeout = 7\n\n[hooks.state.${JSON.stringify(`${FILE}:pre_tool_use:0:0`)}]\ntrusted_hash = ${JSON.stringify(hash('pre_tool_use', CMD, 7))}\n`,
    );
  });

  const refusals: [string, string, RegExp][] = [
    ['not TOML', 'model = "o3\n', /not valid TOML \(line 1: unterminated string\)/],
    ['a duplicate key', 'a = 1\na = 2\n', /line 2: duplicate key "a"/],
    [
      'hooks written inline',
      'hooks.PreToolUse = [{ matcher = "*", hooks = [] }]\n',
      /written as an inline array/,
    ],
    ['hooks not a table', 'hooks = 1\n', /hooks is not a table/],
    [
      'its handler sharing a group',
      `[[hooks.PreToolUse]]\nhooks = [{ type = "command", command = "x" }, { type = "command", command = "${CMD}" }]\n`,
      /other handlers beside this hook's/,
    ],
    [
      'its command in two groups',
      `[[hooks.PreToolUse]]\nhooks = [{ type = "command", command = "${CMD}" }]\n[[hooks.PreToolUse]]\nhooks = [{ type = "command", command = "${CMD}" }]\n`,
      /in 2 groups/,
    ],
    ['hooks.state inline', 'hooks = { state = {} }\n', /the merged file would not be valid TOML/],
  ];
  for (const [what, old, why] of refusals)
    it(`refuses ${what}`, async () => {
      const err = await mergeCodexConfig(old, FILE, { beforeTool: entry() }, ours).catch((e) => e);
      expect(err).toBeInstanceOf(CodexMergeRefused);
      expect(err.message).toMatch(why);
    });

  it('refuses to drop a group that other groups follow (their trust keys would shift)', async () => {
    const once = await mergeCodexConfig('', FILE, { afterTool: entry() }, ours);
    const more = `${once}\n[[hooks.PostToolUse]]\nhooks = [{ type = "command", command = "other" }]\n`;
    const err = await mergeCodexConfig(more, FILE, {}, ours).catch((e) => e);
    expect(err.message).toMatch(/other groups follow it/);
  });
});

describe('parseToml', () => {
  it('reads the TOML 1.0 forms and where headers and entries are', () => {
    const src = [
      'a = "x\\ty\\u00e9"',
      "b = 'C:\\path'",
      'c = """\nline1 \\\n   line2"""',
      "d = '''\nraw\\n'''",
      'e = [1, 0x1F, 0o7, 0b10, 1_000, -2, # comment',
      '  3.5, 1e3, inf, -inf, true]',
      'f = 1979-05-27T07:32:00Z',
      'g = 1979-05-27 07:32:00',
      'h = 07:32:00',
      'i.j."k l" = 1',
      '[t]',
      'x = { y = 1, z.w = [] }',
      '[[arr]]',
      '[[arr]]',
      'n = 2',
    ].join('\n');
    const doc = parseToml(src);
    const d = doc.data as any;
    expect(d.a).toBe('x\tyé');
    expect(d.b).toBe('C:\\path');
    expect(d.c).toBe('line1 line2');
    expect(d.d).toBe('raw\\n');
    expect(d.e).toEqual([1n, 31n, 7n, 2n, 1000n, -2n, 3.5, 1000, Infinity, -Infinity, true]);
    expect(d.f).toEqual(new TomlDate('1979-05-27T07:32:00Z'));
    expect(d.g).toEqual(new TomlDate('1979-05-27 07:32:00'));
    expect(d.h).toEqual(new TomlDate('07:32:00'));
    expect(d.i.j['k l']).toBe(1n);
    expect(d.t.x.z.w).toEqual([]);
    expect(d.arr).toHaveLength(2);
    expect(d.arr[1].n).toBe(2n);
    expect(doc.headers.map((h) => [h.path.join('.'), h.array, src.slice(h.start, h.start + 3)])).toEqual([
      ['t', false, '[t]'],
      ['arr', true, '[[a'],
      ['arr', true, '[[a'],
    ]);
    const n = doc.entries.find((e) => e.key === 'n')!;
    expect(src.slice(n.valueStart, n.valueEnd)).toBe('2');
  });

  const bad: [string, RegExp][] = [
    ['[a]\n[a]', /line 2: table "a" is defined twice/],
    ['a = {}\na.b = 1', /line 2: cannot add keys/],
    ['a.b = 1\n[a]', /line 2: table "a" is defined twice/],
    ['a = [1,]x', /after a statement/],
    ['a = 01', /invalid value/],
    ['a = "\\q"', /invalid escape/],
    ['a = 1 b = 2', /after a statement/],
    ['[[a]]\n[a]', /defined twice/],
    ['a = []\n[[a]]', /not as an array of tables/],
    ['= 1', /unexpected "="/],
    ['a = "x', /unterminated/],
  ];
  for (const [src, why] of bad)
    it(`refuses ${JSON.stringify(src)}`, () => {
      expect(() => parseToml(src)).toThrow(TomlSyntaxError);
      expect(() => parseToml(src)).toThrow(why);
    });
});
