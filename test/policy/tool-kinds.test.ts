import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  commandLine,
  type KindedCall,
  kindedCall,
  kindOf,
  pathsInPatch,
  TOOL_KINDS,
  type ToolKind,
} from '../../src/policy/tool-kinds.js';

function call(kind: ToolKind, fields: Partial<Omit<KindedCall, 'kind'>>): KindedCall {
  return { kind, command: '', paths: [], url: '', ...fields };
}

const CODEX_PATCH = [
  '*** Begin Patch',
  '*** Add File: hello.txt',
  '+Hello world',
  '*** Update File: src/app.py',
  '*** Move to: src/main.py',
  '@@ def greet():',
  '-print("Hi")',
  '+print("Hello, world!")',
  '*** Delete File: obsolete.txt',
  '*** End Patch',
].join('\n');

describe('one call per host and kind, shaped like the host sends it', () => {
  // Argument shapes copied from the captured exchanges where one exists (see the table's evidence).
  const cases: [string, string, unknown, KindedCall][] = [
    // PicoClaw (protocol fixtures for exec and read_file)
    [
      'picoclaw',
      'exec',
      { action: 'run', command: 'rm -rf build' },
      call('shell', { command: 'rm -rf build' }),
    ],
    ['picoclaw', 'read_file', { path: '.env' }, call('file_read', { paths: ['.env'] })],
    [
      'picoclaw',
      'write_file',
      { path: 'notes.txt', content: 'x' },
      call('file_write', { paths: ['notes.txt'] }),
    ],
    [
      'picoclaw',
      'edit_file',
      { path: 'a.go', old_text: 'x', new_text: 'y' },
      call('file_write', { paths: ['a.go'] }),
    ],
    [
      'picoclaw',
      'append_file',
      { path: 'log.txt', content: 'x' },
      call('file_write', { paths: ['log.txt'] }),
    ],
    [
      'picoclaw',
      'web_fetch',
      { url: 'http://example.com/install.sh' },
      call('web_fetch', { url: 'http://example.com/install.sh' }),
    ],
    // Claude Code
    [
      'claude-code',
      'Bash',
      { command: 'echo hookgate-e2e-<MARKER> > marker.txt', description: 'print a test marker' },
      call('shell', { command: 'echo hookgate-e2e-<MARKER> > marker.txt' }),
    ],
    [
      'claude-code',
      'Monitor',
      { description: 'watch', timeout_ms: 1000, command: 'tail -f log' },
      call('shell', { command: 'tail -f log' }),
    ],
    [
      'claude-code',
      'PowerShell',
      { command: 'Remove-Item -Recurse C:\\x' },
      call('shell', { command: 'Remove-Item -Recurse C:\\x' }),
    ],
    [
      'claude-code',
      'Read',
      { file_path: '/repo/.env', offset: 1 },
      call('file_read', { paths: ['/repo/.env'] }),
    ],
    [
      'claude-code',
      'Write',
      { file_path: '/repo/a.ts', content: '' },
      call('file_write', { paths: ['/repo/a.ts'] }),
    ],
    [
      'claude-code',
      'Edit',
      { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b' },
      call('file_write', { paths: ['/repo/a.ts'] }),
    ],
    [
      'claude-code',
      'NotebookEdit',
      { notebook_path: '/repo/n.ipynb', new_source: 'x' },
      call('file_write', { paths: ['/repo/n.ipynb'] }),
    ],
    [
      'claude-code',
      'WebFetch',
      { url: 'https://example.com/', prompt: 'summarise' },
      call('web_fetch', { url: 'https://example.com/' }),
    ],
    // OpenClaw (before_tool_call params; the other schemas from the captured tool list)
    [
      'openclaw',
      'exec',
      { command: 'echo hookgate-e2e-<MARKER>' },
      call('shell', { command: 'echo hookgate-e2e-<MARKER>' }),
    ],
    ['openclaw', 'read', { path: 'MEMORY.md', offset: 1 }, call('file_read', { paths: ['MEMORY.md'] })],
    ['openclaw', 'write', { path: 'out.txt', content: 'x' }, call('file_write', { paths: ['out.txt'] })],
    [
      'openclaw',
      'edit',
      { path: 'a.md', edits: [{ oldText: 'a', newText: 'b' }] },
      call('file_write', { paths: ['a.md'] }),
    ],
    [
      'openclaw',
      'apply_patch',
      { input: CODEX_PATCH },
      call('file_write', { paths: ['hello.txt', 'src/app.py', 'src/main.py', 'obsolete.txt'] }),
    ],
    [
      'openclaw',
      'web_fetch',
      { url: 'https://example.com/a', extractMode: 'markdown' },
      call('web_fetch', { url: 'https://example.com/a' }),
    ],
    // Hermes
    [
      'hermes',
      'terminal',
      { command: 'rm -rf ./dist', background: false },
      call('shell', { command: 'rm -rf ./dist' }),
    ],
    ['hermes', 'read_file', { path: '~/.ssh/id_rsa' }, call('file_read', { paths: ['~/.ssh/id_rsa'] })],
    ['hermes', 'write_file', { path: 'a.txt', content: 'x' }, call('file_write', { paths: ['a.txt'] })],
    [
      'hermes',
      'patch',
      { mode: 'replace', path: 'a.py', old_string: 'a', new_string: 'b' },
      call('file_write', { paths: ['a.py'] }),
    ],
    [
      'hermes',
      'patch',
      {
        mode: 'patch',
        patch: '*** Begin Patch\n***Update  File:  b.py\n*** Move File: c.py -> d.py\n*** End Patch',
      },
      call('file_write', { paths: ['b.py', 'c.py', 'd.py'] }),
    ],
    [
      'hermes',
      'web_extract',
      { urls: ['https://a.example/', 'https://b.example/'] },
      call('web_fetch', { url: 'https://a.example/ https://b.example/' }),
    ],
    // Codex
    [
      'codex',
      'Bash',
      { command: 'echo hookgate-e2e-<MARKER>' },
      call('shell', { command: 'echo hookgate-e2e-<MARKER>' }),
    ],
    [
      'codex',
      'apply_patch',
      { command: CODEX_PATCH },
      call('file_write', { paths: ['hello.txt', 'src/app.py', 'src/main.py', 'obsolete.txt'] }),
    ],
    // Copilot CLI (preToolUse toolArgs for bash)
    [
      'copilot',
      'bash',
      { command: 'echo hookgate-e2e-<MARKER>' },
      call('shell', { command: 'echo hookgate-e2e-<MARKER>' }),
    ],
    [
      'copilot',
      'view',
      { path: '/repo/.env', view_range: [1, 10] },
      call('file_read', { paths: ['/repo/.env'] }),
    ],
    [
      'copilot',
      'create',
      { path: '/repo/new.ts', file_text: 'x' },
      call('file_write', { paths: ['/repo/new.ts'] }),
    ],
    [
      'copilot',
      'edit',
      { path: '/repo/a.ts', old_str: 'a', new_str: 'b' },
      call('file_write', { paths: ['/repo/a.ts'] }),
    ],
    [
      'copilot',
      'str_replace_editor',
      { command: 'str_replace', path: '/repo/a.ts', old_str: 'a', new_str: 'b' },
      call('file_write', { paths: ['/repo/a.ts'] }),
    ],
    [
      'copilot',
      'apply_patch',
      CODEX_PATCH,
      call('file_write', { paths: ['hello.txt', 'src/app.py', 'src/main.py', 'obsolete.txt'] }),
    ],
    [
      'copilot',
      'apply_patch',
      { input: '*** Begin Patch\n*** Delete File: x\n*** End Patch' },
      call('file_write', { paths: ['x'] }),
    ],
    [
      'copilot',
      'web_fetch',
      { url: 'https://example.com/', raw: false },
      call('web_fetch', { url: 'https://example.com/' }),
    ],
    // Gemini CLI (BeforeTool tool_input for run_shell_command)
    [
      'gemini',
      'run_shell_command',
      { command: 'echo hookgate-e2e-<MARKER>', description: 'print a test marker' },
      call('shell', { command: 'echo hookgate-e2e-<MARKER>' }),
    ],
    [
      'gemini',
      'read_file',
      { file_path: 'src/a.ts', start_line: 1 },
      call('file_read', { paths: ['src/a.ts'] }),
    ],
    [
      'gemini',
      'read_many_files',
      { include: ['src/**/*.ts', 'README.md'], recursive: true },
      call('file_read', { paths: ['src/**/*.ts', 'README.md'] }),
    ],
    ['gemini', 'write_file', { file_path: 'a.txt', content: 'x' }, call('file_write', { paths: ['a.txt'] })],
    [
      'gemini',
      'replace',
      { file_path: 'a.ts', instruction: 'i', old_string: 'a', new_string: 'b' },
      call('file_write', { paths: ['a.ts'] }),
    ],
    [
      'gemini',
      'web_fetch',
      { prompt: 'Summarise https://a.example/x and\nhttps://b.example/y please' },
      call('web_fetch', { url: 'https://a.example/x https://b.example/y' }),
    ],
    ['gemini', 'web_fetch', { url: 'https://a.example/' }, call('web_fetch', { url: 'https://a.example/' })],
  ];

  it.each(cases)('%s %s', (host, tool, args, expected) => {
    expect(kindOf(host, tool)).toBe(expected.kind);
    expect(kindedCall(host, tool, args)).toEqual(expected);
  });

  it('covers every host with a shell, a file reader, a file writer; web_fetch where the host has one', () => {
    const hosts = ['picoclaw', 'claude-code', 'openclaw', 'hermes', 'codex', 'copilot', 'gemini'];
    for (const host of hosts) {
      const kinds = new Set(TOOL_KINDS.filter((e) => e.host === host).map((e) => e.kind));
      expect(kinds.has('shell'), host).toBe(true);
      expect(kinds.has('file_write'), host).toBe(true);
      // Codex's hooks see no file reader and no fetcher (hosted web search only): a documented gap.
      if (host !== 'codex') {
        expect(kinds.has('file_read'), host).toBe(true);
        expect(kinds.has('web_fetch'), host).toBe(true);
      }
    }
  });

  it('has each host and tool once', () => {
    const keys = TOOL_KINDS.map((e) => `${e.host} ${e.tool}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('what has no kind', () => {
  it('mcp tools, unknown tools and unknown hosts', () => {
    expect(kindOf('mcp', 'exec')).toBeUndefined();
    expect(kindedCall('mcp', 'Bash', { command: 'rm -rf /' })).toBeUndefined();
    expect(kindOf('claude-code', 'mcp__hookgate-x__Bash')).toBeUndefined();
    expect(kindOf('claude-code', 'Glob')).toBeUndefined();
    expect(kindOf('nohost', 'Bash')).toBeUndefined();
  });

  it('tool names are case-sensitive, as the hosts match them', () => {
    expect(kindOf('claude-code', 'bash')).toBeUndefined();
    expect(kindOf('copilot', 'Bash')).toBeUndefined();
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', ''])(
    'prototype key %j as a tool or host name',
    (name) => {
      expect(kindOf('claude-code', name)).toBeUndefined();
      expect(kindOf(name, 'Bash')).toBeUndefined();
      expect(kindedCall('claude-code', name, {})).toBeUndefined();
    },
  );

  it('non-string host or tool', () => {
    expect(kindOf(null as unknown as string, 'Bash')).toBeUndefined();
    expect(kindOf('claude-code', 42 as unknown as string)).toBeUndefined();
    expect(kindedCall({} as unknown as string, [] as unknown as string, {})).toBeUndefined();
  });

  it('a host and tool cannot be spliced across the separator', () => {
    expect(kindOf('claude-code\u0000Bash', '')).toBeUndefined();
  });
});

describe('hostile and malformed arguments', () => {
  const empty = (kind: ToolKind) => call(kind, {});

  it.each([null, undefined, 0, 42, true, 'rm -rf /', [], ['rm -rf /'], { command: 7 }, { command: null }])(
    'shell arguments %j give an empty command',
    (args) => {
      expect(kindedCall('claude-code', 'Bash', args)).toEqual(empty('shell'));
    },
  );

  it.each([null, [], { path: 3 }, { path: { nested: 'x' } }, { path: '' }, { file_path: 'wrong-key' }])(
    'file arguments %j give no paths',
    (args) => {
      expect(kindedCall('picoclaw', 'read_file', args)).toEqual(empty('file_read'));
    },
  );

  it('list arguments keep only their strings', () => {
    expect(kindedCall('gemini', 'read_many_files', { include: ['a', 1, null, { x: 1 }, '', 'b'] })).toEqual(
      call('file_read', { paths: ['a', 'b'] }),
    );
    expect(kindedCall('hermes', 'web_extract', { urls: 'https://one.example/' })).toEqual(
      call('web_fetch', { url: 'https://one.example/' }),
    );
    expect(kindedCall('hermes', 'web_extract', { urls: [1, {}, 'https://x.example/'] })).toEqual(
      call('web_fetch', { url: 'https://x.example/' }),
    );
  });

  it('a url that is not a string is left empty', () => {
    expect(kindedCall('claude-code', 'WebFetch', { url: ['https://a.example/'] })).toEqual(
      empty('web_fetch'),
    );
    expect(kindedCall('gemini', 'web_fetch', { prompt: 12 })).toEqual(empty('web_fetch'));
  });

  it('only own keys count: nothing inherited, a "__proto__" key from the wire is just a key', () => {
    const inherited = Object.create({ command: 'rm -rf /' });
    expect(kindedCall('claude-code', 'Bash', inherited)).toEqual(empty('shell'));
    const wire = JSON.parse('{"__proto__":{"command":"rm -rf /"},"constructor":"x"}');
    expect(kindedCall('claude-code', 'Bash', wire)).toEqual(empty('shell'));
    const own = JSON.parse('{"__proto__":"x","command":"ls"}');
    expect(kindedCall('claude-code', 'Bash', own)).toEqual(call('shell', { command: 'ls' }));
  });

  it('a null-prototype object is read like any other', () => {
    const args = Object.assign(Object.create(null), { command: 'ls' });
    expect(kindedCall('codex', 'Bash', args)).toEqual(call('shell', { command: 'ls' }));
  });

  it('a throwing getter or proxy gives the empty call, never an exception', () => {
    const getter = Object.defineProperty({}, 'command', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(kindedCall('claude-code', 'Bash', getter)).toEqual(empty('shell'));
    const proxy = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );
    expect(kindedCall('openclaw', 'write', proxy)).toEqual(empty('file_write'));
  });

  it('a 1 MB command is passed whole, not cut (a cut would hide its tail)', () => {
    const command = `${'a'.repeat(1024 * 1024)}; rm -rf /`;
    const out = kindedCall('picoclaw', 'exec', { action: 'run', command });
    expect(out?.command).toBe(command);
    expect(out?.command.endsWith('rm -rf /')).toBe(true);
  });

  it('a 1 MB patch line without an arrow costs linear time', () => {
    const patch = `*** Move File: ${' '.repeat(1024 * 1024)}x`;
    const started = Date.now();
    expect(kindedCall('hermes', 'patch', { patch })?.paths).toEqual(['x']);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('deeply nested arguments are not walked', () => {
    let nested: unknown = { command: 'rm -rf /' };
    for (let i = 0; i < 10_000; i++) nested = { args: nested };
    expect(kindedCall('claude-code', 'Bash', nested)).toEqual(empty('shell'));
  });
});

describe('commandLine: strings and argv arrays', () => {
  it.each([
    [['bash', '-lc', 'rm -rf /'], 'rm -rf /'],
    [['/bin/sh', '-c', 'rm -rf /'], 'rm -rf /'],
    [['zsh', '-l', '-c', 'git status'], 'git status'],
    [['bash', '-c', '--', 'echo hi'], 'echo hi'],
    [['bash', '-c', '$0 -rf /', 'rm'], '$0 -rf / rm'],
    [['rm', '-rf', '/'], 'rm -rf /'],
    [['bash', 'script.sh'], 'bash script.sh'],
    [['bash', '--login'], 'bash --login'],
    [['/usr/bin/env', 'bash', '-c', 'rm -rf /'], '/usr/bin/env bash -c rm -rf /'],
    [['python3', '-c', 'import os'], 'python3 -c import os'],
    [[], ''],
    [['bash', '-c', 1], ''],
    ['ls -la', 'ls -la'],
    [{ 0: 'rm' }, ''],
  ])('%j → %j', (value, expected) => {
    expect(commandLine(value)).toBe(expected);
  });
});

describe('pathsInPatch', () => {
  it('reads Codex headers, including a move', () => {
    expect(pathsInPatch(CODEX_PATCH)).toEqual(['hello.txt', 'src/app.py', 'src/main.py', 'obsolete.txt']);
  });

  it('reads CRLF line endings and indented headers', () => {
    expect(pathsInPatch('*** Begin Patch\r\n  *** Add File: a b.txt  \r\n*** End Patch')).toEqual([
      'a b.txt',
    ]);
  });

  it('ignores hunk lines that only look like headers, and keyword pairs no format has', () => {
    expect(
      pathsInPatch(
        '+*** Add File: not-a-header\n-*** Delete File: nor-this\n*** Add to: x\n*** Update File:',
      ),
    ).toEqual([]);
  });
});

describe('docs/tool-kinds.md', () => {
  it('renders every row of the table', () => {
    const docs = readFileSync(new URL('../../docs/tool-kinds.md', import.meta.url), 'utf8');
    for (const e of TOOL_KINDS) {
      expect(docs, `${e.host} ${e.tool}`).toContain(`| ${e.kind} | ${e.host} | \`${e.tool}\` |`);
    }
  });
});
