// Writes schemas/decision-record.v1.json from the zod schema in src/server/decision-record.ts.
// `npm run schemas`; test/server/decision-record.test.ts fails when the file is out of date.
import { writeFileSync } from 'node:fs';
import { decisionRecordJsonSchema } from '../src/server/decision-record.js';

export function renderDecisionSchema(): string {
  return `${JSON.stringify(decisionRecordJsonSchema(), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = new URL('../schemas/decision-record.v1.json', import.meta.url);
  writeFileSync(out, renderDecisionSchema());
  process.stdout.write(`wrote ${out.pathname.split('/').slice(-2).join('/')}\n`);
}
