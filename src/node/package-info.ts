import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Found {
  root: string;
  version: string;
}

let found: Found | null | undefined;

/**
 * hookgate's own package, found by walking up from this file: its package.json sits two levels up
 * in a clone (src/node/) and three in the package (dist/src/node/).
 */
function ownPackage(): Found | null {
  if (found !== undefined) return found;
  found = null;
  for (const up of ['../../', '../../../']) {
    try {
      const dir = new URL(up, import.meta.url);
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'hookgate' && pkg.version) {
        found = { root: fileURLToPath(dir), version: pkg.version };
        break;
      }
    } catch {
      // not at this level
    }
  }
  return found;
}

export function ownVersion(): string {
  return ownPackage()?.version ?? 'unknown';
}

/** The directory holding hookgate's package.json (a clone's root, or the installed package's). */
export function packageRoot(): string | undefined {
  return ownPackage()?.root;
}
