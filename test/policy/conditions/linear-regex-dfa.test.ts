import { describe, expect, it } from 'vitest';
import {
  compileLinearRegex,
  MAX_MATCH_STEPS,
  type RegexOptions,
} from '../../../src/policy/conditions/linear-regex.js';
import { seededRandom } from '../../helpers/seeded-random.js';

/**
 * The lazy DFA against the Pike VM it replaced (kept as `engine: 'nfa'`): the same answer, and the
 * same step budget, so the same error past it, on generated patterns and inputs that use what a
 * DFA state has to get right (assertions, multiline, case folding, Unicode classes, code points
 * outside the BMP, newlines), with the cache large or so small that it starts over inside a match.
 */

type Outcome = boolean | string;

function outcome(pattern: string, input: string, options: RegexOptions): Outcome {
  try {
    return compileLinearRegex(pattern, options).test(input);
  } catch (e) {
    return (e as Error).message;
  }
}

const random = seededRandom(7);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const ATOMS = [
  'a',
  'b',
  'A',
  'é',
  'λ',
  '😀',
  '.',
  '[ab]',
  '[^a]',
  '[a-zé]',
  '\\w',
  '\\W',
  '\\s',
  '\\d',
  '\\pL',
  '\\p{Greek}',
  '\\PL',
  '[[:alpha:]]',
  '\\x{1F600}',
  '\\n',
  '^',
  '$',
  '\\b',
  '\\B',
  '\\A',
  '\\z',
];
const FLAGS = ['', '', '', '(?i)', '(?m)', '(?s)', '(?ms)', '(?im)'];

function pattern(depth: number): string {
  const n = 1 + Math.floor(random() * 3);
  let out = '';
  for (let i = 0; i < n; i++) {
    let atom =
      depth > 0 && random() < 0.3
        ? `(${pick(['', '?:', '?i:', '?m:', '?s:'])}${pattern(depth - 1)}${random() < 0.5 ? `|${pattern(depth - 1)}` : ''})`
        : pick(ATOMS);
    if (random() < 0.4 && !/^(\^|\$|\\[bBAz])$/.test(atom))
      atom += pick(['*', '+', '?', '{1,2}', '{2}', '*?']);
    out += atom;
  }
  return pick(FLAGS) + out;
}

const ALPHABET = ['a', 'b', 'A', 'B', ' ', '1', '\n', '\r', 'é', 'É', 'λ', 'Λ', '😀', '_', '-', '\ud800'];

function input(max: number): string {
  const n = Math.floor(random() * max);
  let s = '';
  for (let i = 0; i < n; i++) s += pick(ALPHABET);
  return s;
}

describe('lazy DFA: the same answers as the Pike VM', () => {
  it('3,000 generated patterns, 20 inputs each (ASCII, Unicode, newlines)', () => {
    const disagreements: string[] = [];
    let matched = 0;
    for (let k = 0; k < 3000; k++) {
      const p = pattern(2);
      const inputs = Array.from({ length: 20 }, () => input(12));
      for (const s of inputs) {
        const nfa = outcome(p, s, { engine: 'nfa' });
        const dfa = outcome(p, s, {});
        if (nfa === true) matched++;
        if (nfa !== dfa) disagreements.push(`${p} on ${JSON.stringify(s)}: ${nfa} vs ${dfa}`);
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
    // The generator is worth something only if it produces both answers often.
    expect(matched).toBeGreaterThan(10_000);
    expect(matched).toBeLessThan(50_000);
  });

  it('one compiled pattern reused across many inputs (a warm cache) answers as a fresh one does', () => {
    const disagreements: string[] = [];
    for (let k = 0; k < 300; k++) {
      const p = pattern(2);
      const warm = compileLinearRegex(p);
      const tiny = compileLinearRegex(p, { cacheSlots: 8 });
      for (let j = 0; j < 30; j++) {
        const s = input(40);
        const nfa = outcome(p, s, { engine: 'nfa' });
        for (const [name, re] of [
          ['warm', warm],
          ['tiny cache', tiny],
        ] as const) {
          let got: Outcome;
          try {
            got = re.test(s);
          } catch (e) {
            got = (e as Error).message;
          }
          if (got !== nfa) disagreements.push(`${name}: ${p} on ${JSON.stringify(s)}: ${nfa} vs ${got}`);
        }
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
  });
});

describe('lazy DFA: the step budget is the Pike VM’s', () => {
  it('the same error at every budget around the point where a match runs out', () => {
    const disagreements: string[] = [];
    let errors = 0;
    for (let k = 0; k < 200; k++) {
      const p = pattern(2);
      const s = input(30);
      // Find the NFA's cost by bisection on the budget, then try every budget around it.
      let lo = 0;
      let hi = 100_000;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (typeof outcome(p, s, { engine: 'nfa', maxSteps: mid }) === 'string') lo = mid + 1;
        else hi = mid;
      }
      for (let b = Math.max(0, lo - 3); b <= lo + 3; b++) {
        const nfa = outcome(p, s, { engine: 'nfa', maxSteps: b });
        if (typeof nfa === 'string') errors++;
        for (const cacheSlots of [undefined, 8]) {
          const dfa = outcome(p, s, { maxSteps: b, cacheSlots });
          if (dfa !== nfa) disagreements.push(`${p} on ${JSON.stringify(s)} at ${b} steps: ${nfa} vs ${dfa}`);
        }
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
    expect(errors).toBeGreaterThan(400);
  });

  it('a cached transition costs what computing it did: (?:a?){40}a{40}$ still runs out on 100,001 characters', () => {
    const long = `${'a'.repeat(100_000)}!`;
    const re = compileLinearRegex('(?:a?){40}a{40}$');
    const error = new RegExp(`needs more than ${MAX_MATCH_STEPS} steps`);
    expect(() => re.test(long)).toThrow(error);
    // Again, with every transition now cached: the same error, not a cheaper answer.
    expect(() => re.test(long)).toThrow(error);
    expect(() => compileLinearRegex('(?:a?){40}a{40}$', { engine: 'nfa' }).test(long)).toThrow(error);
    expect(re.test('a'.repeat(50))).toBe(true);
  });

  it('more characters than the budget run out on both engines, even on a one-state pattern', () => {
    const huge = 'a'.repeat(MAX_MATCH_STEPS + 1);
    const error = new RegExp(`needs more than ${MAX_MATCH_STEPS} steps`);
    // A required literal that is absent answers before any machine runs.
    expect(compileLinearRegex('b').test(huge)).toBe(false);
    expect(() => compileLinearRegex('^a*$').test(huge)).toThrow(error);
    expect(() => compileLinearRegex('^a*$', { engine: 'nfa' }).test(huge)).toThrow(error);
  });

  it('a pattern whose DFA is exponential hands over to the Pike VM mid-input: the same answer and steps', () => {
    const r = seededRandom(11);
    const disagreements: string[] = [];
    for (const [b, tail] of [
      ['b', ''],
      ['b', `a${'b'.repeat(14)}c`],
      ['é', ''],
      ['é', `a${'é'.repeat(14)}c`],
      ['😀', `a\n${'😀'.repeat(13)}c`],
    ] as const) {
      const p = `(a|${b})*a(a|${b}|\\n){14}c`;
      let s = '';
      for (let i = 0; i < 3000; i++) s += r() < 0.5 ? 'a' : b;
      s += tail;
      let lo = 0;
      let hi = 1_000_000;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (typeof outcome(p, s, { engine: 'nfa', maxSteps: mid }) === 'string') lo = mid + 1;
        else hi = mid;
      }
      for (const steps of [lo - 1, lo, lo + 1, MAX_MATCH_STEPS]) {
        const nfa = outcome(p, s, { engine: 'nfa', maxSteps: steps });
        const dfa = outcome(p, s, { maxSteps: steps });
        if (nfa !== dfa) disagreements.push(`${p} + ${JSON.stringify(tail)} at ${steps}: ${nfa} vs ${dfa}`);
      }
      expect(outcome(p, s, {})).toBe(tail !== '');
    }
    expect(disagreements).toEqual([]);
  });

  it('a pattern whose DFA is exponential (every transition new) is bounded by the budget, not by memory', () => {
    const r = seededRandom(3);
    let s = '';
    for (let i = 0; i < 200_000; i++) s += r() < 0.5 ? 'a' : 'b';
    const p = '(a|b)*a(a|b){14}c';
    const error = new RegExp(`needs more than ${MAX_MATCH_STEPS} steps`);
    expect(() => compileLinearRegex(p).test(s)).toThrow(error);
    expect(() => compileLinearRegex(p, { engine: 'nfa' }).test(s)).toThrow(error);
    expect(compileLinearRegex(p).test(`${s.slice(0, 2000)}${'a'.repeat(15)}c`)).toBe(true);
  });
});
