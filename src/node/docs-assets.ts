import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { DocsAssets } from '../server/docs.js';

const require = createRequire(import.meta.url);

/** The docs viewer's files, read from the installed (pinned) swagger-ui-dist package. */
export async function readDocsAssets(): Promise<DocsAssets> {
  const [bundle, css] = await Promise.all([
    readFile(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'), 'utf8'),
    readFile(require.resolve('swagger-ui-dist/swagger-ui.css'), 'utf8'),
  ]);
  return { bundle, css };
}
