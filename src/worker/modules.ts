/**
 * The `module` backends a Worker can host. Workers cannot import a file named at runtime, so every
 * hook a config may name as `backend: { type: module, module: <spec> }` is listed here with a
 * static import, and wrangler bundles it. Keys are the config's `module:` strings, relative to the
 * repository root exactly as the Node gateway resolves them (a leading `./` is ignored).
 *
 * A module must not import `node:*` (the Worker has no nodejs_compat): keep a hook's definition in
 * a file of its own and its `serveStdio` entry in another, as examples/weather-hook.ts and
 * examples/weather-sdk.ts do.
 */
export type ModuleRegistry = Readonly<Record<string, () => Promise<unknown>>>;

export const modules: ModuleRegistry = {
  'examples/weather-hook.ts': () => import('../../examples/weather-hook.js'),
};

/** The `loadModule` factory for buildBackends: a lookup in `registry`, never a dynamic path. */
export function registryLoader(registry: ModuleRegistry): (spec: string) => Promise<unknown> {
  return async (spec) => {
    const key = normaliseSpec(spec);
    const load = Object.hasOwn(registry, key) ? registry[key] : undefined;
    if (!load) {
      const known = Object.keys(registry);
      throw new Error(
        `"${spec}" is not in the Worker's module registry (src/worker/modules.ts); ` +
          (known.length ? `known: ${known.join(', ')}` : 'the registry is empty'),
      );
    }
    return load();
  };
}

function normaliseSpec(spec: string): string {
  return spec.replace(/^(\.\/)+/, '');
}
