/**
 * The docs viewer's files for a Worker, which cannot read node_modules at run time: wrangler.toml
 * (`[[rules]]`, type "Text") makes these two imports strings inside the bundle.
 */
import bundle from 'swagger-ui-dist/swagger-ui-bundle.js';
import css from 'swagger-ui-dist/swagger-ui.css';
import type { DocsAssets } from '../server/docs.js';

export const loadDocsAssets = (): Promise<DocsAssets> => Promise.resolve({ bundle, css });
