import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../../../src/node/cli/commands/index.js';

/**
 * Hermes runs `hookgate hermes-hook` once per event and PicoClaw starts `hookgate bridge` per
 * session: what their import graph holds is what every event pays for in start-up time and memory
 * (bench/cli-start.ts measures it). This reads the graph esbuild resolves from the `hookgate`
 * executable, following every import a run of the command may execute: static imports, and dynamic
 * ones too, except that of the command list, where only the command that runs is followed (and the
 * CLI's own, for --version).
 */
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const ENTRY = 'src/node/cli/bin.ts';
const COMMAND_LIST = 'src/node/cli/commands/index.ts';
const CLI = 'src/node/cli/cli.ts';

let inputs: Metafile['inputs'];
beforeAll(async () => {
  const result = await build({
    absWorkingDir: REPO,
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    outdir: 'graph-not-written',
    packages: 'external',
    logLevel: 'silent',
  });
  inputs = result.metafile.inputs;
});

/** The source files and packages one run of `hookgate <command>` may load. */
function graphOf(command: string): { files: Set<string>; packages: Set<string>; builtins: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const builtins = new Set<string>();
  const todo = [ENTRY];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const input = inputs[file];
    if (!input) throw new Error(`esbuild did not resolve ${file}`);
    for (const imp of input.imports) {
      if (
        file === COMMAND_LIST &&
        imp.kind === 'dynamic-import' &&
        imp.path !== `src/node/cli/commands/${command}.ts`
      )
        continue;
      // The CLI's own dynamic imports serve `--version`, not a command.
      if (file === CLI && imp.kind === 'dynamic-import') continue;
      if (!imp.external) todo.push(imp.path);
      else if (imp.path.startsWith('node:')) builtins.add(imp.path);
      else
        packages.add(
          imp.path
            .split('/')
            .slice(0, imp.path.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  }
  return { files, packages, builtins };
}

/** Loaded by the gateway, never needed to forward one event. */
const HEAVY_PACKAGES = [
  'hono',
  '@hono/node-server',
  '@hono/zod-openapi',
  'zod',
  'yaml',
  'jose',
  '@modelcontextprotocol/server',
  'swagger-ui-dist',
];
const HEAVY =
  /^src\/(server|config|mcp|backends|auth|hosts|policy|limits)\/|^src\/node\/(server|config-loader|logger)\.ts$|^src\/node\/redis\//;
/** Small leaves of those folders: the config's error class (the CLI reports it), the redaction rules. */
const LIGHT = ['src/config/errors.ts', 'src/server/logger.ts'];
/** A host's per-event command (src/hosts/<host>/hook.node.ts) is what those commands run. */
const PER_EVENT = /^src\/hosts\/[a-z-]+\/hook\.node\.ts$/;
const heavy = (files: Set<string>) =>
  [...files].filter((f) => HEAVY.test(f) && !LIGHT.includes(f) && !PER_EVENT.test(f));

describe('what a per-event command loads', () => {
  it('every command in the list loads, under its own name', async () => {
    for (const entry of commands) expect((await entry.load()).name).toBe(entry.name);
  });

  it('hermes-hook: no package at all (fetch is Node’s own), no gateway source', () => {
    const { files, packages } = graphOf('hermes-hook');
    expect([...packages]).toEqual([]);
    expect(heavy(files)).toEqual([]);
    // The other commands' modules are not loaded either.
    expect([...files].filter((f) => f.startsWith('src/node/cli/commands/'))).toEqual(
      expect.not.arrayContaining([
        'src/node/cli/commands/serve.ts',
        'src/node/cli/commands/setup.ts',
        'src/node/cli/commands/token.ts',
      ]),
    );
  });

  it('hermes-hook: posts with node:http, never fetch (whose own start-up costs more than the command)', () => {
    const { files } = graphOf('hermes-hook');
    const calling = [...files].filter((f) => /\bfetch\(/.test(readFileSync(join(REPO, f), 'utf8')));
    expect(calling).toEqual([]);
    expect(files).toContain('src/node/post-json.ts');
    // An ES import of node:http builds its namespace, and its lazy WebSocket export loads undici
    // (about 10 MB): post-json takes it with process.getBuiltinModule.
    // The same holds, less dearly, for every Node module (node:fs, node:util: about 4 MB together).
    expect([...graphOf('hermes-hook').builtins]).toEqual([]);
  });

  it('hook (Codex, Copilot, Gemini, Claude Code commands): the same budget as hermes-hook; of the hosts only their shim.ts, which import nothing', () => {
    const { files, packages, builtins } = graphOf('hook');
    expect([...packages]).toEqual([]);
    expect([...builtins]).toEqual([]);
    const shims = [...files].filter((f) => /^src\/hosts\/[a-z-]+\/shim\.ts$/.test(f));
    expect(shims.sort()).toEqual([
      'src/hosts/claude-code/shim.ts',
      'src/hosts/codex/shim.ts',
      'src/hosts/copilot/shim.ts',
      'src/hosts/gemini/shim.ts',
    ]);
    for (const f of shims) expect(inputs[f].imports).toEqual([]);
    expect(heavy(files).filter((f) => !shims.includes(f))).toEqual([]);
    expect(files).toContain('src/node/post-json.ts');
    const calling = [...files].filter((f) => /\bfetch\(/.test(readFileSync(join(REPO, f), 'utf8')));
    expect(calling).toEqual([]);
    expect(files.has('src/node/cli/commands/setup.ts')).toBe(false);
  });

  it('bridge: its WebSocket client and logger, nothing of the gateway', () => {
    const { files, packages } = graphOf('bridge');
    expect([...packages].filter((p) => HEAVY_PACKAGES.includes(p))).toEqual([]);
    expect(heavy(files)).toEqual([]);
    expect(files.has('src/node/cli/commands/serve.ts')).toBe(false);
  });

  it('serve still gets the gateway (the graph is read, not assumed empty)', () => {
    const { files, packages } = graphOf('serve');
    expect(packages).toContain('hono');
    expect(files).toContain('src/node/server.ts');
  });
});
