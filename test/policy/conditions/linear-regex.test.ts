import { describe, expect, it } from 'vitest';
import {
  compileLinearRegex,
  MAX_MATCH_STEPS,
  MAX_PROGRAM_SIZE,
  RegexError,
} from '../../../src/policy/conditions/linear-regex.js';
import { seededRandom } from '../../helpers/seeded-random.js';

/**
 * Patterns whose meaning is the same in RE2 and in JavaScript's RegExp (with the u flag): there
 * JavaScript is the oracle, on inputs short enough for its backtracking.
 */
const SHARED: string[] = [
  'abc',
  '^abc$',
  'a.c',
  'a*',
  'ab+c',
  'ab?c',
  'a{2}',
  'a{2,}b',
  'a{1,3}b$',
  '(ab|cd)+e',
  '^(?:x|y|)z',
  '[a-c]+',
  '[^a-c]',
  '[a\\-z]',
  '\\d+\\.\\d+',
  '\\w+@\\w+',
  '\\s\\S',
  '\\bgit\\b',
  '\\Bit',
  'rm\\s+-[a-z]*r[a-z]*f',
  '(a+)+$',
  '(a|aa)*b',
  'x*?y',
  '\\.env$',
  '^/etc/(passwd|shadow)$',
  'https?://[^/]+\\.acme\\.test/',
  '\\x41',
  '\\t',
  '.',
  '^$',
  'é+',
  '😀.',
  '[😀-😂]',
];
const INPUTS = [
  '',
  'abc',
  'xabcx',
  'aaab',
  'aab',
  'cdabe',
  'z',
  'yz',
  ']',
  '-',
  '3.14',
  'me@host',
  ' x',
  'git status',
  'digit',
  'rm -rf /',
  'rm -fr /',
  'rm  -r x',
  'aaaa',
  'aaaa!',
  'ab',
  'xxy',
  'cat .env',
  '.envrc',
  '/etc/passwd',
  'https://api.acme.test/v1',
  'http://evil.test/acme.test/',
  'A',
  'a\tb',
  '\n',
  'café',
  '😀x',
  '😁',
];

describe('linear-time regex: the same answers as RegExp where RE2 and JavaScript agree', () => {
  for (const pattern of SHARED) {
    it(pattern, () => {
      const ours = compileLinearRegex(pattern);
      const js = new RegExp(pattern, 'u');
      for (const input of INPUTS) {
        expect([input, ours.test(input)]).toEqual([input, js.test(input)]);
      }
    });
  }
});

describe('linear-time regex: RE2 syntax and semantics', () => {
  const cases: [string, string, boolean][] = [
    ['(?i)GIT push', 'git PUSH', true],
    ['(?i:a)b', 'AB', false],
    ['(?i:a)b', 'Ab', true],
    ['(?s)a.b', 'a\nb', true],
    ['a.b', 'a\nb', false],
    ['(?m)^b$', 'a\nb\nc', true],
    ['^b$', 'a\nb\nc', false],
    ['\\Aab\\z', 'ab', true],
    ['\\Aab\\z', 'ab\n', false],
    ['[[:digit:]]+x', 'a12x', true],
    ['[[:^alpha:]]', 'abc', false],
    ['\\pL+\\d', 'ab1', true],
    ['\\p{Greek}', 'λ', true],
    ['\\PL', 'abc', false],
    ['\\Q.*\\E', 'a.*b', true],
    ['\\Q.*\\E', 'ab', false],
    ['(?P<name>x)y', 'xy', true],
    ['\\x{1F600}', '😀', true],
    ['\\101', 'A', true],
    ['a{,2}', 'a{,2}', true], // not a repeat: literal braces, as in RE2
    ['[^a]', '\n', true],
    ['[]a]', ']', true], // a leading ] is a member, as in RE2 (JavaScript refuses it)
  ];
  for (const [pattern, input, expected] of cases) {
    it(`${pattern} on ${JSON.stringify(input)} → ${expected}`, () => {
      expect(compileLinearRegex(pattern).test(input)).toBe(expected);
    });
  }
});

describe('linear-time regex: what RE2 refuses is refused, with the reason', () => {
  const refused: [string, RegExp][] = [
    ['(a)\\1', /invalid escape sequence: \\1/],
    ['(?=x)', /unsupported Perl syntax: \(\?=/],
    ['(?!x)', /unsupported Perl syntax: \(\?!/],
    ['(?<=x)y', /unsupported Perl syntax/],
    ['a**', /bad repetition operator: \*\*/],
    ['a++', /bad repetition operator/],
    ['*a', /missing argument to repetition operator/],
    ['a{1001}', /invalid repeat count/],
    ['a{3,2}', /invalid repeat count/],
    ['(ab', /missing closing \)/],
    ['ab)', /unexpected \)/],
    ['[ab', /missing closing \]/],
    ['[z-a]', /invalid character class range/],
    ['\\p{NoSuchScript}', /invalid character class range/],
    ['\\q', /invalid escape sequence/],
    ['ab\\', /trailing backslash/],
    ['((((a{100}){100}){100}))', new RegExp(`over ${MAX_PROGRAM_SIZE} states`)],
  ];
  for (const [pattern, why] of refused) {
    it(pattern, () => {
      let error: unknown;
      try {
        compileLinearRegex(pattern);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RegexError);
      expect((error as RegexError).code).toBe('REGEX_INVALID');
      expect((error as Error).message).toMatch(why);
    });
  }
});

describe('linear-time regex: patterns that make a backtracking engine explode', () => {
  // With backtracking these take exponential time (a 30-character input already takes seconds in
  // RegExp); here each is one pass over the input, so the test's own timeout is never near.
  const long = `${'a'.repeat(100_000)}!`;
  it.each([
    ['(a+)+$', true],
    ['(a|aa)+$', true],
    ['(a*)*b', false],
    ['^(\\w+\\s?)*$', true],
  ])('%s on 100 001 characters', (pattern, onFifty) => {
    const re = compileLinearRegex(pattern);
    expect(re.test(long)).toBe(false);
    expect(re.test('a'.repeat(50))).toBe(onFifty);
  });

  it('a match that would take more than MAX_MATCH_STEPS (states × characters) is an error', () => {
    // About 120 states live at each of 100,001 characters: linear, but 12 million steps.
    const re = compileLinearRegex('(?:a?){40}a{40}$');
    expect(re.test(`${'a'.repeat(10_000)}!`)).toBe(false);
    expect(re.test('a'.repeat(50))).toBe(true);
    expect(() => re.test(long)).toThrow(new RegExp(`needs more than ${MAX_MATCH_STEPS} steps`));
    // A few states over the same input stay well inside it.
    expect(compileLinearRegex('^a*$').test(long)).toBe(false);
    expect(compileLinearRegex('^a*!$').test(long)).toBe(true);
  });
});

describe('linear-time regex: random patterns agree with RegExp', () => {
  // A seeded generator (the same patterns every run) over constructs RE2 and JavaScript read
  // alike; inputs avoid \r and the Unicode line separators, which only JavaScript's `.` excludes.
  const random = seededRandom(20);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const atoms = ['a', 'b', 'c', '.', '[ab]', '[^a]', '\\w', '\\s', '\\d', 'x', ' '];
  function pattern(depth: number): string {
    const n = 1 + Math.floor(random() * 3);
    let out = '';
    for (let i = 0; i < n; i++) {
      let atom =
        depth > 0 && random() < 0.3
          ? `(${pattern(depth - 1)}${random() < 0.5 ? `|${pattern(depth - 1)}` : ''})`
          : pick(atoms);
      if (random() < 0.4) atom += pick(['*', '+', '?', '{1,2}', '{2}', '*?', '{0,}']);
      out += atom;
    }
    if (random() < 0.15) out = `^${out}`;
    if (random() < 0.15) out = `${out}$`;
    if (random() < 0.1) out = `\\b${out}`;
    return out;
  }
  function input(): string {
    const n = Math.floor(random() * 9);
    let s = '';
    for (let i = 0; i < n; i++) s += pick(['a', 'b', 'c', 'x', ' ', '1', '\n', 'é']);
    return s;
  }

  it('2,000 patterns, 20 inputs each', () => {
    const disagreements: string[] = [];
    for (let k = 0; k < 2000; k++) {
      const p = pattern(2);
      const ours = compileLinearRegex(p);
      const js = new RegExp(p, 'u');
      for (let j = 0; j < 20; j++) {
        const s = input();
        if (ours.test(s) !== js.test(s)) disagreements.push(`${p} on ${JSON.stringify(s)}`);
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
  });
});
