/**
 * The Worker's import graph is web-standard only: nothing src/worker/index.ts reaches (through any
 * chain of imports, packages included) may import `node:*` (or a bare Node builtin), `ws` or
 * `pino`. esbuild resolves the graph the way wrangler does (workerd/worker/browser conditions) and
 * its metafile names every file and every import, so a failure names the importer.
 */
import { readdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));
const FORBIDDEN_PACKAGES = ['ws', 'pino'];

function forbidden(spec: string): boolean {
  if (spec.startsWith('node:')) return true;
  if (BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0])) return true;
  return FORBIDDEN_PACKAGES.some((p) => spec === p || spec.startsWith(`${p}/`));
}

interface Offence {
  importer: string;
  spec: string;
}

/** Bundles `entry` (nothing written) and returns every forbidden import with its importer. */
async function forbiddenImports(entry: string): Promise<{ offences: Offence[]; inputs: string[] }> {
  const offences: Offence[] = [];
  const result = await build({
    absWorkingDir: REPO,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser', 'import', 'module'],
    mainFields: ['browser', 'module', 'main'],
    logLevel: 'silent',
    // wrangler.toml's Text rule: the docs viewer's files are strings in the Worker, not code.
    loader: { '.css': 'text' },
    plugins: [
      {
        name: 'text-modules',
        setup(b) {
          b.onLoad({ filter: /swagger-ui-dist[\\/]swagger-ui-bundle\.js$/ }, async (args) => ({
            contents: await readFile(args.path, 'utf8'),
            loader: 'text',
          }));
        },
      },
      {
        name: 'forbidden-imports',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point' || !forbidden(args.path)) return undefined;
            offences.push({ importer: args.importer.replace(REPO, ''), spec: args.path });
            // Keep walking: report all of them, not just the first.
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  const meta = result.metafile as Metafile;
  return { offences, inputs: Object.keys(meta.inputs) };
}

describe('the Worker import graph', () => {
  let worker: ReturnType<typeof forbiddenImports>;
  beforeAll(() => {
    worker = forbiddenImports('src/worker/index.ts');
  });

  it('has no node:*, ws or pino anywhere below src/worker/index.ts', async () => {
    const { offences, inputs } = await worker;
    expect(offences, JSON.stringify(offences, null, 2)).toEqual([]);
    // It is the real graph: the gateway's shared code and its packages are in it...
    expect(inputs).toContain('src/server/app.ts');
    expect(inputs).toContain('src/worker/worker.ts');
    expect(inputs.some((f) => f.includes('node_modules/hono/'))).toBe(true);
    expect(inputs.some((f) => f.includes('node_modules/jose/'))).toBe(true);
    // ...and none of the Node-only glue.
    const nodeOnly = inputs.filter(
      (f) =>
        f.startsWith('src/node/') ||
        f.startsWith('src/bridge/') ||
        f === 'src/sdk/stdio.ts' ||
        NODE_ONLY_NAME.test(f),
    );
    expect(nodeOnly).toEqual([]);
  });

  it('resolves jose to its web build (a Node build would import node:crypto)', async () => {
    const { inputs } = await worker;
    const jose = inputs.filter((f) => f.includes('node_modules/jose/'));
    expect(jose.length).toBeGreaterThan(0);
    expect(jose.some((f) => /\/node\//.test(f))).toBe(false);
  });

  it('would catch an offence (the Node entry imports all three)', async () => {
    const { offences } = await forbiddenImports('src/node/server.ts');
    const specs = new Set(offences.map((o) => o.spec));
    expect(specs).toContain('ws');
    expect([...specs].some((s) => s.startsWith('node:'))).toBe(true);
    expect(offences.find((o) => o.spec === 'ws')?.importer).toBe('src/node/server.ts');
  });
});

/**
 * src/hosts keeps each host in one folder, Node-only parts included, so the split is by name there:
 * a host file that needs Node (a setup printer writing files, a per-event command) is named
 * `*.node.ts`. Any other file in src/hosts is web-standard: through any chain of imports it reaches
 * no Node builtin, `ws` or `pino`, nothing in src/node and no `*.node.ts`. And only src/node and
 * `*.node.ts` files import a `*.node.ts`, so the gateway's web-standard core (and the Worker) never
 * loads one.
 */
const NODE_ONLY_NAME = /\.node\.ts$/;

/** Every source file under src/ and what each imports, as esbuild resolves them (packages left out). */
async function sourceGraph(): Promise<Metafile['inputs']> {
  const entries = (await readdir(`${REPO}src`, { recursive: true }))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => `src/${f.split('\\').join('/')}`);
  const result = await build({
    absWorkingDir: REPO,
    entryPoints: entries,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    splitting: true,
    outdir: 'graph-not-written',
    packages: 'external',
    logLevel: 'silent',
    loader: { '.css': 'text' },
    // The Worker's `cloudflare:` modules: external, like the packages.
    plugins: [
      {
        name: 'external-schemes',
        setup(b) {
          b.onResolve({ filter: /^[a-z]+:/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  return result.metafile.inputs;
}

/** What ties `file` to Node, through any chain of its imports: each as the importer and what it imports. */
function nodeReach(inputs: Metafile['inputs'], file: string): Offence[] {
  const offences: Offence[] = [];
  const seen = new Set<string>();
  const todo = [file];
  while (todo.length > 0) {
    const importer = todo.pop()!;
    if (seen.has(importer)) continue;
    seen.add(importer);
    for (const imp of inputs[importer]?.imports ?? []) {
      if (imp.external) {
        if (forbidden(imp.path)) offences.push({ importer, spec: imp.path });
      } else if (imp.path.startsWith('src/node/') || NODE_ONLY_NAME.test(imp.path)) {
        offences.push({ importer, spec: imp.path });
      } else todo.push(imp.path);
    }
  }
  return offences;
}

describe('Node-only files in src/hosts are named *.node.ts', () => {
  let graph: Promise<Metafile['inputs']>;
  beforeAll(() => {
    graph = sourceGraph();
  });

  it('every other file in src/hosts reaches no Node builtin, ws, pino, src/node or *.node.ts', async () => {
    const inputs = await graph;
    const hostFiles = Object.keys(inputs).filter((f) => f.startsWith('src/hosts/'));
    // It is the real graph: the hosts' routes and translations are in it.
    expect(hostFiles).toContain('src/hosts/claude-code/route.ts');
    const offences = hostFiles.filter((f) => !NODE_ONLY_NAME.test(f)).flatMap((f) => nodeReach(inputs, f));
    expect(offences, JSON.stringify(offences, null, 2)).toEqual([]);
  });

  it('only src/node and *.node.ts files import a *.node.ts', async () => {
    const inputs = await graph;
    const offences = Object.entries(inputs)
      .filter(([f]) => !f.startsWith('src/node/') && !NODE_ONLY_NAME.test(f))
      .flatMap(([importer, input]) =>
        input.imports
          .filter((imp) => !imp.external && NODE_ONLY_NAME.test(imp.path))
          .map((imp) => ({ importer, spec: imp.path })),
      );
    expect(offences, JSON.stringify(offences, null, 2)).toEqual([]);
    // The CLI does import them (the check sees the imports it is looking for).
    expect(
      inputs['src/node/cli/commands/setup.ts'].imports.some((imp) => NODE_ONLY_NAME.test(imp.path)),
    ).toBe(true);
  });

  it('would catch an offence (a *.node.ts file reaches Node)', async () => {
    const inputs = await graph;
    const offences = nodeReach(inputs, 'src/hosts/command/setup.node.ts');
    expect(offences.map((o) => o.spec)).toContain('node:fs');
  });
});
