import { readFileSync } from 'node:fs';

/**
 * hookgate's own package.json, found by walking up from this file: it sits two levels up in a
 * clone (src/node/) and three in the package (dist/src/node/).
 */
export function ownVersion(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'hookgate' && pkg.version) return pkg.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}
