/**
 * CEL engines for gateway conditions, compared on what the gateway needs: compile time, evaluation
 * time of typical conditions and of 20 rules per call, a ReDoS pattern, size in a Worker bundle,
 * and whether the bundle runs in workerd. Each engine is bundled by esbuild the way wrangler
 * bundles the Worker; the same bundle is timed in Node, measured, and run in workerd (miniflare).
 *
 *   npx tsx bench/cel.ts                       # hookgate's conditions and the raw engine behind them
 *   npx tsx bench/cel.ts --grants              # only the CPU per call of conditional grants
 *   npx tsx bench/cel.ts --compare DIR         # also engines installed in DIR/node_modules:
 *                                              #   @bufbuild/cel@0.6.1, cel-js@0.8.2
 *
 * (`--compare` keeps the other engines out of this repository's dependencies: install them in a
 * scratch directory with `npm install @bufbuild/cel@0.6.1 cel-js@0.8.2` and point DIR at it.)
 * Figures: docs/performance.md, "CEL engines".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { compileLinearRegex, MAX_MATCH_STEPS } from '../src/policy/conditions/linear-regex.js';
import { REPO_ROOT } from './lib/config.js';
import { grantCost } from './lib/grant-cost.js';
import { ruleCost } from './lib/rule-cost.js';
import { median } from './lib/stats.js';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 ? process.argv[i + 1] : undefined;
}
const COMPARE = flag('compare');

const TYPICAL = [
  'args.command.startsWith("git status")',
  'args.command.matches("rm\\\\s+-[a-z]*r[a-z]*f")',
  'args.exists(k, string(args[k]).contains(".env"))',
];

/** Twenty rules of the kinds people write: prefixes, substrings, patterns, one comprehension. */
const TWENTY = [
  ...TYPICAL,
  'args.command.contains("git push --force")',
  'args.command.contains("git push -f")',
  'args.command.matches("^\\\\s*sudo\\\\b")',
  'args.command.matches("curl[^|]*\\\\|\\\\s*(ba)?sh")',
  'args.command.startsWith("chmod 777")',
  'args.command.contains("/etc/shadow")',
  'args.command.contains("mkfs")',
  'args.command.matches("dd\\\\s+if=")',
  'tool == "Bash" && args.command.contains(":(){")',
  'tool in ["Write", "Edit"]',
  'args.command.startsWith("npm publish")',
  'args.command.contains("DROP TABLE")',
  'args.command.matches("(?i)password\\\\s*=")',
  'args.command.endsWith(".pem")',
  'args.command.contains("~/.ssh")',
  'args.command.matches("shutdown|reboot|halt")',
  'args.command.size() > 10000',
];

const VIEW: { tool: string; args: Record<string, unknown> } & Record<string, unknown> = {
  tool: 'Bash',
  args: { command: 'git status --short && ls -la src', description: 'Show the working tree' },
  host: 'claude-code',
  tenant: 'acme',
  hook: 'guard',
  claims: { sub: 'alice' },
  session_id: 'sess-1',
  agent_id: '',
  now: new Date(),
  new_args: {},
};

interface EngineSpec {
  name: string;
  /** Where its imports resolve. */
  dir: string;
  /** Module source defining `compile(source) → (view) → unknown`; throws on a bad condition. */
  adapter: string;
}

const ENGINES: EngineSpec[] = [
  {
    name: 'hookgate conditions (@marcbachmann/cel-js 8.0.0 + linear matches)',
    dir: REPO_ROOT,
    adapter: `
import { compileCondition, evaluate } from './src/policy/conditions/index.ts';
export function compile(src) {
  const c = compileCondition(src, 'bench');
  return (view) => { const r = evaluate(c, view); if (typeof r === 'object') throw new Error(r.error); return r; };
}`,
  },
  {
    name: '@marcbachmann/cel-js 8.0.0 (its own matches: RegExp)',
    dir: REPO_ROOT,
    adapter: `
import { Environment } from '@marcbachmann/cel-js';
const env = new Environment().registerVariable('args', 'map<string, dyn>').registerVariable('tool', 'string');
export function compile(src) {
  const p = env.parse(src);
  const c = p.check();
  if (!c.valid) throw c.error;
  return (view) => p({ args: view.args, tool: view.tool });
}`,
  },
];
if (COMPARE) {
  ENGINES.push(
    {
      name: '@bufbuild/cel 0.6.1',
      dir: COMPARE,
      adapter: `
import { celEnv, plan, parse, CelScalar, mapType, isCelError } from '@bufbuild/cel';
const env = celEnv({ variables: { args: mapType(CelScalar.STRING, CelScalar.DYN), tool: CelScalar.STRING } });
export function compile(src) {
  const p = plan(env, parse(src));
  return (view) => { const r = p({ args: view.args, tool: view.tool }); if (isCelError(r)) throw r; return r; };
}`,
    },
    {
      name: 'cel-js 0.8.2',
      dir: COMPARE,
      adapter: `
import { parse, evaluate } from 'cel-js';
export function compile(src) {
  const r = parse(src);
  if (!r.isSuccess) throw new Error('parse error: ' + src);
  return (view) => evaluate(r.cst, { args: view.args, tool: view.tool });
}`,
    },
  );
}

/** The Worker half of every bundle: compiles and runs the typical conditions, answers the results. */
const WORKER_TAIL = `
const TYPICAL = ${JSON.stringify(TYPICAL)};
const VIEW = ${JSON.stringify(VIEW)};
export default {
  async fetch() {
    const out = {};
    for (const s of TYPICAL) {
      try { out[s] = String(compile(s)({ ...VIEW, now: new Date() })); } catch (e) { out[s] = 'error: ' + e.message; }
    }
    return Response.json(out);
  },
};`;

interface Bundle {
  file: string;
  code: string;
  bytes: number;
  gzip: number;
}

async function bundle(spec: EngineSpec, outDir: string, k: number): Promise<Bundle> {
  const result = await build({
    stdin: { contents: spec.adapter + WORKER_TAIL, resolveDir: spec.dir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser', 'import'],
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  const file = join(outDir, `engine-${k}.mjs`);
  writeFileSync(file, code);
  return { file, code, bytes: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length };
}

async function runsInWorkerd(code: string): Promise<string> {
  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    cf: false,
    workers: [
      {
        config: {
          name: 'cel',
          compatibilityDate: '2026-10-23',
          manifest: { mainModule: 'index.js', modules: { 'index.js': { type: 'esm', contents: code } } },
        },
      },
    ],
  });
  try {
    const res = await mf.dispatchFetch('http://bench.test/');
    const body = (await res.json()) as Record<string, string>;
    const failed = Object.entries(body).filter(([, v]) => v.startsWith('error'));
    return failed.length === 0 ? 'yes' : `runs, but ${failed.map(([s, v]) => `${s}: ${v}`).join('; ')}`;
  } catch (err) {
    return `no: ${(err as Error).message.split('\n')[0]}`;
  } finally {
    await mf.dispose();
  }
}

/** Median µs per call of `fn` over `rounds` batches of `n` calls, after a warm-up batch. */
function microseconds(fn: () => unknown, n: number, rounds = 7): number {
  for (let i = 0; i < n; i++) fn();
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    per.push(((performance.now() - t0) * 1000) / n);
  }
  return median(per);
}

/**
 * `(a+)+$` on a…a!, two characters longer each time from 12: a backtracking engine doubles its time
 * per character and is stopped at the first answer over a second; an engine that reaches 32 is
 * also run on 100,000 characters.
 */
function redos(compile: (s: string) => (v: typeof VIEW) => unknown): string {
  const run = compile('args.command.matches("(a+)+$")');
  const at = (n: number) => {
    const t0 = performance.now();
    const answer = run({ ...VIEW, args: { command: `${'a'.repeat(n)}!` } });
    return { ms: performance.now() - t0, answer };
  };
  const figures: string[] = [];
  for (let n = 12; n <= 32; n += 2) {
    const { ms } = at(n);
    figures.push(`${n}: ${ms.toFixed(1)} ms`);
    if (ms > 1000) return `${figures.join(', ')} (backtracking: stopped)`;
  }
  const { ms, answer } = at(100_000);
  figures.push(`100000: ${ms.toFixed(1)} ms (${String(answer)})`);
  return figures.join(', ');
}

/** What the step budget of the linear matcher (MAX_MATCH_STEPS) costs when a match uses it all. */
function stepBudget(): string {
  const re = compileLinearRegex('(?:a?){40}a{40}$');
  const input = `${'a'.repeat(100_000)}!`;
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    try {
      re.test(input);
    } catch {
      // over the budget, as intended
    }
    ms.push(performance.now() - t0);
  }
  return `${MAX_MATCH_STEPS} steps: ${median(ms).toFixed(1)} ms (median of 5)`;
}

/** Conditional grants as the gateway's policy step runs them (bench/lib/grant-cost.ts). */
function printGrantCost(): void {
  console.log(`\n== conditional grants per call (approve_tools, applyPolicy)\n  ${grantCost().join('\n  ')}`);
}

/** Gateway rules before the hook is asked (bench/lib/rule-cost.ts). */
function printRuleCost(): void {
  console.log(`\n== gateway rules per call (decideByRules)\n  ${ruleCost().join('\n  ')}`);
}

if (process.argv.includes('--grants')) {
  printGrantCost();
  process.exit(0);
}
if (process.argv.includes('--rules')) {
  printRuleCost();
  process.exit(0);
}
const outDir = mkdtempSync(join(tmpdir(), 'hookgate-cel-'));
try {
  for (const [k, spec] of ENGINES.entries()) {
    console.log(`\n== ${spec.name}`);
    let b: Bundle;
    try {
      b = await bundle(spec, outDir, k);
    } catch (err) {
      console.log(`  cannot bundle: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    console.log(
      `  Worker bundle: ${(b.bytes / 1024).toFixed(0)} KiB minified, ${(b.gzip / 1024).toFixed(1)} KiB gzip`,
    );
    console.log(`  runs in workerd: ${await runsInWorkerd(b.code)}`);
    const { compile } = (await import(pathToFileURL(b.file).href)) as {
      compile: (s: string) => (v: typeof VIEW) => unknown;
    };
    let usable = true;
    for (const src of TYPICAL) {
      try {
        const c = microseconds(() => compile(src), 500);
        const run = compile(src);
        const e = microseconds(() => run(VIEW), 20_000);
        console.log(
          `  ${src}\n    compile ${c.toFixed(1)} µs, evaluate ${e.toFixed(2)} µs → ${String(run(VIEW))}`,
        );
      } catch (err) {
        console.log(`  ${src}\n    cannot run it: ${(err as Error).message.split('\n')[0]}`);
        usable = false;
      }
    }
    if (!usable) continue;
    // A rule this engine refuses or fails on (RE2 syntax JavaScript lacks, such as (?i)) is named
    // and left out of the per-call figure.
    const rules: ((v: typeof VIEW) => unknown)[] = [];
    for (const s of TWENTY) {
      try {
        const r = compile(s);
        r(VIEW);
        rules.push(r);
      } catch (err) {
        console.log(`  refused: ${s}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    const all = microseconds(() => {
      for (const r of rules) r(VIEW);
    }, 5_000);
    const none = microseconds(() => {}, 5_000);
    console.log(
      `  ${rules.length} rules per call: ${(all - none).toFixed(1)} µs (${((all - none) / rules.length).toFixed(2)} µs per rule)`,
    );
    console.log(`  ReDoS (a+)+$ on a…a!: ${redos(compile)}`);
  }
  console.log(`\n== linear matcher's step budget\n  ${stepBudget()}`);
  printGrantCost();
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
