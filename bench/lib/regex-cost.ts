/**
 * Per-character cost of `matches()`'s linear matcher: the lazy DFA against the Pike VM it replaced
 * (kept in linear-regex.ts as the tests' reference), on the patterns a hostile or a busy rule runs,
 * over 1 KB to 1 MB of input that does not match (the whole input is read). Both engines run in the
 * same rounds, their order alternating; the step budget is lifted so that the engine alone is timed
 * (with it, a match past MAX_MATCH_STEPS stops early, on both engines at the same character).
 * Wall time of one test() call, median over rounds, divided by the input's length.
 */
import { compileLinearRegex, type LinearRegex } from '../../src/policy/conditions/linear-regex.js';
import { median } from './stats.js';

const TWENTY_WORDS = [
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'mkfs',
  'fdisk',
  'iptables',
  'useradd',
  'passwd',
  'crontab',
  'chown',
  'insmod',
  'modprobe',
  'sysctl',
  'mount',
  'umount',
  'killall',
  'nohup',
  'visudo',
  'systemctl',
];

/** Shell-like text with `rm` in it (the required literal passes) and none of the words above. */
const FILLER = 'cd /srv/app && ls -la build | grep -v tmp; rm build/cache.db; echo done > log.txt\n';

export interface RegexCase {
  name: string;
  pattern: string;
  input: (chars: number) => string;
}

export const REGEX_CASES: RegexCase[] = [
  { name: '(a+)+$ on a…a!', pattern: '(a+)+$', input: (n) => `${'a'.repeat(n - 1)}!` },
  {
    name: 'rm\\s+-[a-z]*r[a-z]*f on shell text',
    pattern: 'rm\\s+-[a-z]*r[a-z]*f',
    input: (n) => FILLER.repeat(Math.ceil(n / FILLER.length)).slice(0, n),
  },
  {
    name: '20 alternatives on shell text',
    pattern: TWENTY_WORDS.join('|'),
    input: (n) => FILLER.repeat(Math.ceil(n / FILLER.length)).slice(0, n),
  },
];

export const REGEX_SIZES = [1_000, 64_000, 1_000_000];

export interface RegexCost {
  name: string;
  chars: number;
  nfaNsPerChar: number;
  dfaNsPerChar: number;
}

function timeOnce(re: LinearRegex, input: string): number {
  const t0 = performance.now();
  const answer = re.test(input);
  const ms = performance.now() - t0;
  if (answer) throw new Error(`${re.source} matched its bench input`);
  return ms;
}

/** ns per character of each engine on each case and size, `rounds` interleaved rounds. */
export function regexCost(rounds = 7): RegexCost[] {
  const results: RegexCost[] = [];
  for (const c of REGEX_CASES) {
    const nfa = compileLinearRegex(c.pattern, { engine: 'nfa', maxSteps: Number.POSITIVE_INFINITY });
    const dfa = compileLinearRegex(c.pattern, { maxSteps: Number.POSITIVE_INFINITY });
    for (const chars of REGEX_SIZES) {
      const input = c.input(chars);
      // Calls per round: enough for about a million characters, at least one.
      const repeat = Math.max(1, Math.round(1_000_000 / chars));
      const times = { nfa: [] as number[], dfa: [] as number[] };
      timeOnce(nfa, input);
      timeOnce(dfa, input);
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? (['nfa', 'dfa'] as const) : (['dfa', 'nfa'] as const);
        for (const engine of order) {
          const re = engine === 'nfa' ? nfa : dfa;
          let ms = 0;
          for (let k = 0; k < repeat; k++) ms += timeOnce(re, input);
          times[engine].push((ms * 1e6) / (repeat * chars));
        }
      }
      results.push({ name: c.name, chars, nfaNsPerChar: median(times.nfa), dfaNsPerChar: median(times.dfa) });
    }
  }
  return results;
}

export function renderRegexCost(rows: RegexCost[]): string {
  const lines = [
    '| pattern | input | Pike VM ns/char | lazy DFA ns/char | ratio |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(
      `| \`${r.name}\` | ${r.chars.toLocaleString('en-US')} | ${r.nfaNsPerChar.toFixed(2)} | ${r.dfaNsPerChar.toFixed(2)} | ${(r.nfaNsPerChar / r.dfaNsPerChar).toFixed(1)}× |`,
    );
  }
  return lines.join('\n');
}

export interface BudgetCost {
  name: string;
  nfaMs: number;
  dfaMs: number;
}

function msToError(pattern: string, input: string, engine: 'nfa' | 'dfa'): number {
  const re = compileLinearRegex(pattern, { engine });
  const t0 = performance.now();
  try {
    re.test(input);
  } catch {
    return performance.now() - t0;
  }
  throw new Error(`${pattern} stayed inside MAX_MATCH_STEPS`);
}

/**
 * What a match that uses the whole step budget (MAX_MATCH_STEPS) costs, each engine, median of
 * `rounds` interleaved: the budget is counted in the Pike VM's steps on both, so it runs out at the
 * same character; the DFA only gets there sooner. Each timed match is a fresh pattern (an empty
 * cache) after warm-up calls (a process's first few take several times longer, before the JIT has
 * compiled the loop). Patterns: one whose transitions are all cached
 * after a few characters, and one whose DFA is exponential (almost every transition computed).
 */
export function budgetCost(rounds = 5): BudgetCost[] {
  let ab = '';
  let seed = 1;
  for (let i = 0; i < 400_000; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    ab += seed & 0x10000 ? 'a' : 'b';
  }
  const cases = [
    { name: '(a+)+$ on 1,000,000 a', pattern: '(a+)+$', input: 'a'.repeat(1_000_000) },
    {
      name: '(?:a?){40}a{40}$ on 100,001 a…a!',
      pattern: '(?:a?){40}a{40}$',
      input: `${'a'.repeat(100_000)}!`,
    },
    { name: '(a|b)*a(a|b){14}c on random a/b (exponential DFA)', pattern: '(a|b)*a(a|b){14}c', input: ab },
  ];
  return cases.map((c) => {
    // The first calls in a process run before the JIT has compiled the loop: warm both up first.
    for (let w = 0; w < 3; w++)
      for (const engine of ['nfa', 'dfa'] as const) msToError(c.pattern, c.input, engine);
    const times = { nfa: [] as number[], dfa: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      for (const engine of r % 2 === 0 ? (['nfa', 'dfa'] as const) : (['dfa', 'nfa'] as const)) {
        times[engine].push(msToError(c.pattern, c.input, engine));
      }
    }
    return { name: c.name, nfaMs: median(times.nfa), dfaMs: median(times.dfa) };
  });
}

export function renderBudgetCost(rows: BudgetCost[]): string {
  const lines = ['| match that runs out of steps | Pike VM ms | lazy DFA ms |', '| --- | ---: | ---: |'];
  for (const r of rows) lines.push(`| \`${r.name}\` | ${r.nfaMs.toFixed(1)} | ${r.dfaMs.toFixed(1)} |`);
  return lines.join('\n');
}
