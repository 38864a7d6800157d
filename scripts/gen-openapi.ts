// Writes openapi/openapi.json from the route definitions in src/server/openapi.ts.
// `npm run openapi`; test/server/openapi.test.ts fails when the file is out of date.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../src/server/openapi.js';

export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = new URL('../openapi/openapi.json', import.meta.url);
  writeFileSync(out, renderOpenApi());
  process.stdout.write(`wrote ${out.pathname.split('/').slice(-2).join('/')}\n`);
}
