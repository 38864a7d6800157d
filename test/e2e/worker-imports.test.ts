/**
 * The Worker's import graph is web-standard only: nothing src/worker/index.ts reaches (through any
 * chain of imports, packages included) may import `node:*` (or a bare Node builtin), `ws` or
 * `pino`. esbuild resolves the graph the way wrangler does (workerd/worker/browser conditions) and
 * its metafile names every file and every import, so a failure names the importer.
 */
import { readFile } from 'node:fs/promises';
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
      (f) => f.startsWith('src/node/') || f.startsWith('src/bridge/') || f === 'src/sdk/stdio.ts',
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
