// Loaded with --import into a gateway: records every module the process resolves (import and
// require alike, in this thread: module.registerHooks) and, on SIGUSR2, prints the npm packages
// among them as `loaded-packages=<JSON array>`, e.g. ["@opentelemetry/api","hono",...].
import { registerHooks } from 'node:module';

const packages = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    const at = result.url.lastIndexOf('/node_modules/');
    if (at >= 0) {
      const parts = result.url.slice(at + '/node_modules/'.length).split('/');
      packages.add(parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
    }
    return result;
  },
});
process.on('SIGUSR2', () => {
  process.stdout.write(`loaded-packages=${JSON.stringify([...packages].sort())}\n`);
});
