/**
 * Extracts the part of the cel-spec conformance tests that applies to gateway conditions into
 * test/fixtures/cel-spec/conformance-subset.json (run by test/policy/conditions/conformance.test.ts).
 * The tests come as JavaScript data in @bufbuild/cel-spec (Apache-2.0); install it anywhere and
 * point this script at that directory:
 *
 *   npm install --prefix SCRATCH @bufbuild/cel-spec@0.6.1
 *   node scripts/extract-cel-conformance.mjs SCRATCH > test/fixtures/cel-spec/conformance-subset.json
 *   npx biome format --write test/fixtures/cel-spec/conformance-subset.json
 *
 * Kept: the suites of features a condition can use, tests with no variable bindings, type
 * environment or container (a condition's variables are the gateway's view), no protobuf messages,
 * bytes, durations or optionals, and an expected value that is a literal (or an expected error).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/extract-cel-conformance.mjs DIR  (DIR/node_modules/@bufbuild/cel-spec)');
  process.exit(2);
}
const file = join(dir, 'node_modules/@bufbuild/cel-spec/dist/esm/testdata/conformance.js');
const { tests } = await import(pathToFileURL(file).href);

const SUITES = new Set([
  'basic',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'parse',
  'string',
  'timestamps',
]);
const OUT_OF_SCOPE =
  /google\.|TestAllTypes|cel\.expr|proto|optional|\.\?|bytes|b"|b'|duration|getDay|getMonth/;

/** An expected value as a CEL literal with its type, or undefined when it has none. */
function literal(v) {
  if (!v || typeof v !== 'object' || Object.keys(v).length !== 1) return undefined;
  const [[key, x]] = Object.entries(v);
  switch (key) {
    case 'int64Value':
      return { src: String(x), type: 'int' };
    case 'uint64Value':
      return { src: `${x}u`, type: 'uint' };
    case 'doubleValue': {
      if (typeof x !== 'number' || !Number.isFinite(x)) return undefined;
      const s = Number.isInteger(x) ? `${x}.0` : String(x);
      return /e/.test(s) ? undefined : { src: s, type: 'double' };
    }
    case 'stringValue':
      return { src: JSON.stringify(x), type: 'string' };
    case 'boolValue':
      return { src: String(x), type: 'bool' };
    case 'nullValue':
      return { src: 'null', type: 'null_type' };
    case 'listValue': {
      const items = (x.values ?? []).map(literal);
      return items.some((i) => !i)
        ? undefined
        : { src: `[${items.map((i) => i.src).join(', ')}]`, type: 'list' };
    }
    case 'mapValue': {
      const entries = (x.entries ?? []).map((e) => [literal(e.key), literal(e.value)]);
      if (entries.some(([k, val]) => !k || !val)) return undefined;
      return { src: `{${entries.map(([k, val]) => `${k.src}: ${val.src}`).join(', ')}}`, type: 'map' };
    }
    default:
      return undefined;
  }
}

const cases = [];
function walk(suite, path) {
  for (const t of suite.tests ?? []) {
    const o = t.original;
    if ((o.bindings && Object.keys(o.bindings).length) || o.typeEnv?.length || o.container) continue;
    if (OUT_OF_SCOPE.test(o.expr)) continue;
    const name = `${path}/${o.name}`;
    if (o.evalError || o.anyEvalErrors) {
      cases.push({ name, expr: o.expr, error: true });
      continue;
    }
    const l = literal(o.value);
    if (l) cases.push({ name, expr: o.expr, value: l.src, type: l.type });
  }
  for (const s of suite.suites ?? []) walk(s, `${path}/${s.name}`);
}
for (const s of tests.suites) if (SUITES.has(s.name)) walk(s, s.name);
process.stdout.write(`${JSON.stringify(cases, null, 1)}\n`);
