import type { Hono } from 'hono';

/**
 * The API docs page (/docs): Swagger UI, served by the gateway itself from the pinned
 * `swagger-ui-dist` package, so the page works with no internet and runs no third-party code
 * fetched at view time. Each runtime supplies the two files its own way (Node reads them from the
 * package, a Worker bundles them as text modules); this file only serves them.
 */
export interface DocsAssets {
  /** swagger-ui-dist/swagger-ui-bundle.js */
  bundle: string;
  /** swagger-ui-dist/swagger-ui.css */
  css: string;
}

/** Loads the viewer's files once, on the first request for them. */
export type DocsAssetsLoader = () => Promise<DocsAssets>;

/**
 * Same-origin only, and nothing inline: the initialiser is a file of its own, and Swagger UI sets
 * its styles through the CSSOM, which style-src does not restrict.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<title>hookgate API</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>' +
  '<body><div id="docs"></div>' +
  '<noscript><a href="/openapi.json">openapi.json</a></noscript>' +
  '<script src="/docs/assets/swagger-ui-bundle.js"></script>' +
  '<script src="/docs/assets/init.js"></script></body></html>';

// validatorUrl: null, or Swagger UI sends the spec to an online validator and shows its badge.
const INIT =
  "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', validatorUrl: null, " +
  'deepLinking: false, tryItOutEnabled: false });\n';

const NO_VIEWER =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>hookgate API</title></head>' +
  '<body><p>The docs viewer is not part of this build. The API description is at ' +
  '<a href="/openapi.json">/openapi.json</a>.</p></body></html>';

// The files change only with the pinned package version, i.e. with a new hookgate build.
const ASSET_CACHE = 'public, max-age=3600';

const securityHeaders = {
  'content-security-policy': DOCS_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function docsRoutes(app: Hono<any>, load: DocsAssetsLoader | undefined): void {
  let loaded: Promise<DocsAssets> | undefined;
  const assets = (): Promise<DocsAssets> => {
    if (!load) throw new Error('no docs assets');
    loaded ??= load();
    // A failed load (a broken install) is retried on the next request rather than kept.
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };

  app.get('/docs', (c) => c.html(load ? PAGE : NO_VIEWER, 200, securityHeaders));
  if (!load) return;
  app.get('/docs/assets/init.js', (c) =>
    c.body(INIT, 200, {
      ...securityHeaders,
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': ASSET_CACHE,
    }),
  );
  app.get('/docs/assets/swagger-ui-bundle.js', async (c) =>
    c.body((await assets()).bundle, 200, {
      ...securityHeaders,
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': ASSET_CACHE,
    }),
  );
  app.get('/docs/assets/swagger-ui.css', async (c) =>
    c.body((await assets()).css, 200, {
      ...securityHeaders,
      'content-type': 'text/css; charset=utf-8',
      'cache-control': ASSET_CACHE,
    }),
  );
}
