/**
 * CEL's `matches()` for tenant-written patterns: RE2 syntax, matched in time linear in the input
 * (a Thompson NFA run as a lazily built DFA, as RE2 does: every input character moves one DFA state
 * along one cached transition, and a transition not yet cached is computed by advancing the NFA's
 * live states once, with no backtracking), so `(a+)+$` on a long string costs the same per character
 * as `a+$`. JavaScript's RegExp backtracks and would let one pattern stall the gateway for every tenant.
 *
 * Only a yes/no answer is needed (CEL's `matches` is an unanchored search), so there are no
 * captures and greedy and lazy repetitions behave the same. What RE2 refuses is refused here too
 * (backreferences, lookaround, possessive repeats, repeat counts over 1000); an error names it.
 * Operates on code points, as CEL strings are sequences of code points.
 */
import { HookgateError } from '../../lib/errors.js';

export class RegexError extends HookgateError<'REGEX_INVALID'> {
  constructor(pattern: string, message: string) {
    super('REGEX_INVALID', `invalid regular expression ${JSON.stringify(pattern)}: ${message}`);
    this.name = 'RegexError';
  }
}

/** The longest pattern accepted, and the most NFA states it may compile to (RE2 has similar caps). */
export const MAX_PATTERN_LENGTH = 2000;
export const MAX_PROGRAM_SIZE = 10_000;
/**
 * Linear is not cheap on every input: the work is states × characters, so a large pattern over a
 * multi-megabyte argument could still hold the event loop. A match that needs more steps than this
 * is an error instead, and the decision that needed it fails closed. A step is one NFA state
 * visited at one position, as the Pike VM counts them, whichever machine runs: the lazy DFA charges
 * a cached transition the steps it took to compute, so the same input runs out at the same
 * character on Node and in workerd, warm cache or cold. The time that buys on the DFA: 0.5 ms for
 * `(a+)+$` (11 steps a character), a few ms for a pattern of one or two steps a character; about
 * 18 ms, as on the Pike VM alone, where the DFA hands over to it (docs/performance.md, "Noisy
 * neighbour"). Counted in steps, not time: the same answer everywhere.
 */
export const MAX_MATCH_STEPS = 2_000_000;
const MAX_REPEAT = 1000;

type CharTest = (cp: number) => boolean;
type AssertKind = 'begin_text' | 'end_text' | 'begin_line' | 'end_line' | 'word' | 'not_word';

type Node =
  | { t: 'empty' }
  /** `lit`: the one code point it matches, when it is a case-sensitive literal. */
  | { t: 'char'; test: CharTest; lit?: number }
  | { t: 'assert'; kind: AssertKind }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'repeat'; node: Node; min: number; max: number };

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

type Inst =
  | { op: 'char'; test: CharTest; next: number; lit?: number }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'assert'; kind: AssertKind; next: number }
  | { op: 'match' };

/** A compiled pattern: `test` answers whether it matches anywhere in the input. */
export interface LinearRegex {
  readonly source: string;
  test(input: string): boolean;
}

/**
 * For the tests and the bench only: which machine runs (the DFA, or the Pike VM it replaced, kept
 * as the reference the DFA is tested against), the step budget, and the DFA's cache size.
 */
export interface RegexOptions {
  engine?: 'dfa' | 'nfa';
  maxSteps?: number;
  cacheSlots?: number;
}

export function compileLinearRegex(pattern: string, options: RegexOptions = {}): LinearRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new RegexError(pattern.slice(0, 40), `longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  const node = new Parser(pattern).parseAll();
  const prog = new Compiler(pattern).compile(node);
  const maxSteps = options.maxSteps ?? MAX_MATCH_STEPS;
  const vm =
    options.engine === 'nfa'
      ? new PikeVm(prog, pattern, maxSteps)
      : new LazyDfa(prog, pattern, maxSteps, options.cacheSlots ?? MAX_DFA_SLOTS);
  const needle = requiredLiteral(node);
  return {
    source: pattern,
    // Most patterns people write contain a literal (`rm`, `.env`): an input without it cannot
    // match, and indexOf answers that without starting the machine.
    test: needle ? (input) => input.includes(needle) && vm.test(input) : (input) => vm.test(input),
  };
}

/** The longest run of literal characters every match must contain, or '' if there is none. */
function requiredLiteral(node: Node): string {
  const items = node.t === 'cat' ? node.items : [node];
  let best: number[] = [];
  let run: number[] = [];
  for (const item of items) {
    if (item.t === 'char' && item.lit !== undefined) {
      run.push(item.lit);
      if (run.length > best.length) best = run;
    } else if (item.t !== 'assert') {
      run = [];
    }
  }
  return String.fromCodePoint(...best);
}

// ---------------------------------------------------------------------------------------------
// Character classes

const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWordChar: CharTest = (c) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
// RE2's \s is ASCII whitespace without \v: [\t\n\f\r ].
const isSpace: CharTest = (c) => c === 9 || c === 10 || c === 12 || c === 13 || c === 32;
const not =
  (f: CharTest): CharTest =>
  (c) =>
    !f(c);
const range =
  (lo: number, hi: number): CharTest =>
  (c) =>
    c >= lo && c <= hi;
const anyOf =
  (tests: CharTest[]): CharTest =>
  (c) =>
    tests.some((t) => t(c));

const POSIX: Record<string, CharTest> = {
  alnum: anyOf([range(48, 57), range(65, 90), range(97, 122)]),
  alpha: anyOf([range(65, 90), range(97, 122)]),
  ascii: range(0, 127),
  blank: (c) => c === 9 || c === 32,
  cntrl: (c) => c <= 31 || c === 127,
  digit: isDigit,
  graph: range(33, 126),
  lower: range(97, 122),
  print: range(32, 126),
  punct: (c) =>
    (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126),
  space: (c) => (c >= 9 && c <= 13) || c === 32,
  upper: range(65, 90),
  word: isWordChar,
  xdigit: anyOf([range(48, 57), range(65, 70), range(97, 102)]),
};

/** Unicode classes (`\pL`, `\p{Greek}`): one code point tested by a JS property escape, linear. */
function unicodeClass(name: string, fail: (m: string) => never): CharTest {
  const spec = /^[A-Z][a-z]?$/.test(name) ? name : `Script=${name}`;
  let re: RegExp;
  try {
    re = new RegExp(`^\\p{${spec}}$`, 'u');
  } catch {
    fail(`invalid character class range: \\p{${name}}`);
  }
  // ASCII answered from a table built once: the DFA asks about all of ASCII when it first runs.
  let ascii: Uint8Array | undefined;
  return (c) => {
    if (c >= 128) return re.test(String.fromCodePoint(c));
    if (!ascii) {
      ascii = new Uint8Array(128);
      for (let a = 0; a < 128; a++) ascii[a] = re.test(String.fromCharCode(a)) ? 1 : 0;
    }
    return ascii[c] === 1;
  };
}

function foldCase(test: CharTest): CharTest {
  return (c) => {
    if (test(c)) return true;
    // ASCII letters fold to ASCII letters, without building strings.
    if (c < 128) return (c >= 65 && c <= 90 && test(c + 32)) || (c >= 97 && c <= 122 && test(c - 32));
    const s = String.fromCodePoint(c);
    const lower = s.toLowerCase();
    const upper = s.toUpperCase();
    return (
      (lower !== s && [...lower].length === 1 && test(lower.codePointAt(0)!)) ||
      (upper !== s && [...upper].length === 1 && test(upper.codePointAt(0)!))
    );
  };
}

// ---------------------------------------------------------------------------------------------
// Parser: RE2 syntax → Node

class Parser {
  private pos = 0;
  private readonly cps: number[];
  constructor(private readonly pattern: string) {
    this.cps = [...pattern].map((ch) => ch.codePointAt(0)!);
  }

  fail(message: string): never {
    throw new RegexError(this.pattern, message);
  }

  parseAll(): Node {
    const node = this.parseAlt({ i: false, m: false, s: false }, 0);
    if (this.pos < this.cps.length) this.fail('unexpected )');
    return node;
  }

  private peek(offset = 0): number | undefined {
    return this.cps[this.pos + offset];
  }

  private parseAlt(flags: Flags, depth: number): Node {
    if (depth > 1000) this.fail('expression nests too deeply');
    const branches: Node[] = [];
    const f = { ...flags };
    for (;;) {
      branches.push(this.parseConcat(f, depth));
      if (this.peek() === 0x7c /* | */) {
        this.pos++;
        continue;
      }
      break;
    }
    return branches.length === 1 ? branches[0]! : { t: 'alt', items: branches };
  }

  /** Flags set by `(?i)` inside a group last until the group's end, across `|`: `f` is mutated. */
  private parseConcat(f: Flags, depth: number): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29 /* ) */) break;
      let atom = this.parseAtom(f, depth);
      if (atom === null) continue; // a flag group such as (?i)
      atom = this.parseRepeats(atom);
      items.push(atom);
    }
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? items[0]! : { t: 'cat', items };
  }

  private parseRepeats(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    const start = this.pos;
    if (c === 0x2a /* * */) [min, max] = [0, -1];
    else if (c === 0x2b /* + */) [min, max] = [1, -1];
    else if (c === 0x3f /* ? */) [min, max] = [0, 1];
    else if (c === 0x7b /* { */) {
      const r = this.tryCounted();
      if (!r) return atom; // RE2: a brace that does not form a repeat is a literal
      [min, max] = r;
    } else return atom;
    if (c !== 0x7b) this.pos++;
    if (this.peek() === 0x3f) this.pos++; // lazy: the same yes/no answer
    const next = this.peek();
    if (next === 0x2a || next === 0x2b || next === 0x3f || (next === 0x7b && this.looksCounted())) {
      this.fail(`bad repetition operator: ${String.fromCodePoint(...this.cps.slice(start, this.pos + 1))}`);
    }
    return { t: 'repeat', node: atom, min, max };
  }

  private looksCounted(): boolean {
    const save = this.pos;
    const r = this.tryCounted();
    this.pos = save;
    return r !== null;
  }

  /** `{n}`, `{n,}`, `{n,m}` at pos; advances past it, or returns null and leaves pos alone. */
  private tryCounted(): [number, number] | null {
    const text = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 24));
    const m = /^\{(\d+)(,(\d*))?\}/.exec(text);
    if (!m) return null;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
    if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min)) {
      this.fail(`invalid repeat count: ${m[0]}`);
    }
    this.pos += [...m[0]].length;
    return [min, max];
  }

  private parseAtom(f: Flags, depth: number): Node | null {
    const c = this.cps[this.pos++]!;
    switch (c) {
      case 0x28 /* ( */:
        return this.parseGroup(f, depth);
      case 0x5b /* [ */:
        return { t: 'char', test: this.parseClass(f) };
      case 0x2e /* . */:
        return { t: 'char', test: f.s ? () => true : (cp) => cp !== 10 };
      case 0x5e /* ^ */:
        return { t: 'assert', kind: f.m ? 'begin_line' : 'begin_text' };
      case 0x24 /* $ */:
        return { t: 'assert', kind: f.m ? 'end_line' : 'end_text' };
      case 0x5c /* \ */:
        return this.parseEscapeAtom(f);
      case 0x2a:
      case 0x2b:
      case 0x3f:
        return this.fail(`missing argument to repetition operator: ${String.fromCodePoint(c)}`);
      default:
        return this.literal(c, f);
    }
  }

  private literal(c: number, f: Flags): Node {
    return f.i ? { t: 'char', test: foldCase((x) => x === c) } : { t: 'char', test: (x) => x === c, lit: c };
  }

  private parseGroup(f: Flags, depth: number): Node | null {
    if (this.peek() === 0x3f /* ? */) {
      this.pos++;
      const rest = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 4));
      if (rest.startsWith('P<') || rest.startsWith('<')) {
        if (rest.startsWith('<=') || rest.startsWith('<!'))
          this.fail('invalid or unsupported Perl syntax: (?<');
        const close = this.cps.indexOf(0x3e /* > */, this.pos);
        if (close < 0) this.fail('invalid named capture');
        const name = String.fromCodePoint(
          ...this.cps.slice(this.pos + (rest.startsWith('P') ? 2 : 1), close),
        );
        if (!/^\w+$/.test(name)) this.fail(`invalid named capture: ${name}`);
        this.pos = close + 1;
        return this.groupBody({ ...f }, depth);
      }
      // Flags: (?flags) or (?flags:re), flags from imsU with an optional - before the cleared ones.
      const inner = { ...f };
      let negate = false;
      let sawFlag = false;
      for (;;) {
        const ch = this.cps[this.pos++];
        if (ch === undefined) this.fail('missing closing )');
        const s = String.fromCodePoint(ch);
        if (s === 'i' || s === 'm' || s === 's') {
          inner[s] = !negate;
          sawFlag = true;
        } else if (s === 'U') {
          sawFlag = true; // ungreedy: the same yes/no answer
        } else if (s === '-' && !negate) {
          negate = true;
          sawFlag = false;
        } else if (s === ')' && sawFlag) {
          Object.assign(f, inner);
          return null;
        } else if (s === ':' && (sawFlag || !negate)) {
          return this.groupBody(inner, depth);
        } else {
          this.fail(`invalid or unsupported Perl syntax: (?${s}`);
        }
      }
    }
    return this.groupBody({ ...f }, depth);
  }

  private groupBody(f: Flags, depth: number): Node {
    const node = this.parseAlt(f, depth + 1);
    if (this.cps[this.pos++] !== 0x29) this.fail('missing closing )');
    return node;
  }

  private parseEscapeAtom(f: Flags): Node {
    const c = this.peek();
    if (c === undefined) this.fail('trailing backslash at end of expression');
    switch (String.fromCodePoint(c)) {
      case 'A':
        this.pos++;
        return { t: 'assert', kind: 'begin_text' };
      case 'z':
        this.pos++;
        return { t: 'assert', kind: 'end_text' };
      case 'b':
        this.pos++;
        return { t: 'assert', kind: 'word' };
      case 'B':
        this.pos++;
        return { t: 'assert', kind: 'not_word' };
      case 'Q': {
        this.pos++;
        let end = this.pos;
        while (end < this.cps.length && !(this.cps[end] === 0x5c && this.cps[end + 1] === 0x45)) end++;
        const items = this.cps.slice(this.pos, end).map((x) => this.literal(x, f));
        this.pos = Math.min(end + 2, this.cps.length);
        if (items.length === 0) return { t: 'empty' };
        return items.length === 1 ? items[0]! : { t: 'cat', items };
      }
    }
    if (!'dDwWsSpP'.includes(String.fromCodePoint(c))) {
      this.pos++;
      return this.literal(this.parseSingleEscape(c, true), f);
    }
    const test = this.parseEscape(true);
    return { t: 'char', test: f.i ? foldCase(test) : test };
  }

  /** An escape after `\` that stands for characters (in or out of a class). */
  private parseEscape(outside: boolean): CharTest {
    const c = this.cps[this.pos++];
    if (c === undefined) this.fail('trailing backslash at end of expression');
    const s = String.fromCodePoint(c);
    switch (s) {
      case 'd':
        return isDigit;
      case 'D':
        return not(isDigit);
      case 'w':
        return isWordChar;
      case 'W':
        return not(isWordChar);
      case 's':
        return isSpace;
      case 'S':
        return not(isSpace);
      case 'p':
      case 'P': {
        let name: string;
        if (this.peek() === 0x7b) {
          const close = this.cps.indexOf(0x7d, this.pos);
          if (close < 0) this.fail('invalid character class range: \\p{');
          name = String.fromCodePoint(...this.cps.slice(this.pos + 1, close));
          this.pos = close + 1;
        } else {
          const n = this.cps[this.pos++];
          if (n === undefined) this.fail('invalid character class range: \\p');
          name = String.fromCodePoint(n);
        }
        let negate = s === 'P';
        if (name.startsWith('^')) {
          negate = !negate;
          name = name.slice(1);
        }
        const t = name === 'Any' ? () => true : unicodeClass(name, (m) => this.fail(m));
        return negate ? not(t) : t;
      }
    }
    const single = this.parseSingleEscape(c, outside);
    return (x) => x === single;
  }

  /** An escape standing for one code point. */
  private parseSingleEscape(c: number, _outside: boolean): number {
    const s = String.fromCodePoint(c);
    switch (s) {
      case 'a':
        return 7;
      case 'f':
        return 12;
      case 't':
        return 9;
      case 'n':
        return 10;
      case 'r':
        return 13;
      case 'v':
        return 11;
      case 'x': {
        if (this.peek() === 0x7b) {
          const close = this.cps.indexOf(0x7d, this.pos);
          const hex = close < 0 ? '' : String.fromCodePoint(...this.cps.slice(this.pos + 1, close));
          if (!/^[0-9a-fA-F]{1,8}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff) {
            this.fail('invalid escape sequence: \\x{');
          }
          this.pos = close + 1;
          return Number.parseInt(hex, 16);
        }
        const hex = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 2));
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.fail(`invalid escape sequence: \\x${hex}`);
        this.pos += 2;
        return Number.parseInt(hex, 16);
      }
    }
    if (c >= 0x30 && c <= 0x37) {
      // Octal: \0, or \1–\7 followed by another octal digit; a lone \1–\9 is a backreference,
      // which RE2 does not have.
      const next = this.peek();
      const isOct = (x: number | undefined) => x !== undefined && x >= 0x30 && x <= 0x37;
      if (c !== 0x30 && !isOct(next)) this.fail(`invalid escape sequence: \\${s}`);
      let value = c - 0x30;
      for (let k = 0; k < 2 && isOct(this.peek()); k++) value = value * 8 + (this.cps[this.pos++]! - 0x30);
      return value;
    }
    // Any punctuation may be escaped; letters and digits only as listed above.
    if (c < 0x80 && !isWordChar(c)) return c;
    return this.fail(`invalid escape sequence: \\${s}`);
  }

  private parseClass(f: Flags): CharTest {
    let negate = false;
    if (this.peek() === 0x5e) {
      negate = true;
      this.pos++;
    }
    const parts: CharTest[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('missing closing ]');
      if (c === 0x5d /* ] */ && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === 0x5b && this.peek(1) === 0x3a /* [: */) {
        const text = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 12));
        const m = /^\[:(\^?)([a-z]+):\]/.exec(text);
        if (m) {
          const t = POSIX[m[2]!];
          if (!t) this.fail(`invalid character class range: ${m[0]}`);
          parts.push(m[1] ? not(t) : t);
          this.pos += m[0].length;
          continue;
        }
      }
      const lo = this.classAtom(parts);
      if (lo === null) continue;
      if (this.peek() === 0x2d /* - */ && this.peek(1) !== undefined && this.peek(1) !== 0x5d) {
        this.pos++;
        const hi = this.classAtom(null);
        if (hi === null || hi < lo) this.fail('invalid character class range');
        parts.push(range(lo, hi));
      } else {
        parts.push((x) => x === lo);
      }
    }
    let test = anyOf(parts);
    if (f.i) test = foldCase(test);
    // As in RE2, a negated class matches \n (only `.` leaves it out without (?s)).
    return negate ? not(test) : test;
  }

  /**
   * One class member: a code point (returned, so it may start a range) or a class escape such as
   * \d (pushed onto `parts`, null returned). `parts` null: only a code point is acceptable.
   */
  private classAtom(parts: CharTest[] | null): number | null {
    const c = this.cps[this.pos++]!;
    if (c !== 0x5c) return c;
    const e = this.peek();
    if (e === undefined) this.fail('missing closing ]');
    if ('dDwWsSpP'.includes(String.fromCodePoint(e))) {
      if (!parts) this.fail('invalid character class range');
      parts.push(this.parseEscape(false));
      return null;
    }
    this.pos++;
    return this.parseSingleEscape(e, false);
  }
}

// ---------------------------------------------------------------------------------------------
// Compiler: Node → program

class Compiler {
  readonly prog: Inst[] = [];
  constructor(private readonly pattern: string) {}

  compile(node: Node): Inst[] {
    this.emit(node);
    this.push({ op: 'match' });
    return this.prog;
  }

  private push(inst: Inst): number {
    if (this.prog.length >= MAX_PROGRAM_SIZE) {
      throw new RegexError(this.pattern, `expression too large (over ${MAX_PROGRAM_SIZE} states)`);
    }
    this.prog.push(inst);
    return this.prog.length - 1;
  }

  /** Instructions whose `next`/`x`/`y` is -1 are patched to the instruction that follows. */
  private emit(node: Node): void {
    switch (node.t) {
      case 'empty':
        return;
      case 'char': {
        const at = this.push({ op: 'char', test: node.test, next: -1, lit: node.lit });
        (this.prog[at] as { next: number }).next = at + 1;
        return;
      }
      case 'assert': {
        const at = this.push({ op: 'assert', kind: node.kind, next: -1 });
        (this.prog[at] as { next: number }).next = at + 1;
        return;
      }
      case 'cat':
        for (const item of node.items) this.emit(item);
        return;
      case 'alt': {
        // split L1, next ; L1: a ; jmp end ; next: split L2, ... ; last
        const jumps: number[] = [];
        node.items.forEach((item, k) => {
          if (k < node.items.length - 1) {
            const split = this.push({ op: 'split', x: -1, y: -1 });
            (this.prog[split] as { x: number }).x = split + 1;
            this.emit(item);
            jumps.push(this.push({ op: 'jmp', x: -1 }));
            (this.prog[split] as { y: number }).y = this.prog.length;
          } else {
            this.emit(item);
          }
        });
        for (const j of jumps) (this.prog[j] as { x: number }).x = this.prog.length;
        return;
      }
      case 'repeat': {
        const { min, max } = node;
        for (let k = 0; k < min; k++) this.emit(node.node);
        if (max === -1) {
          // L: split body, end ; body ; jmp L
          const split = this.push({ op: 'split', x: -1, y: -1 });
          (this.prog[split] as { x: number }).x = split + 1;
          this.emit(node.node);
          this.push({ op: 'jmp', x: split });
          (this.prog[split] as { y: number }).y = this.prog.length;
          return;
        }
        // (body (body (...)?)?)? : each optional copy may skip to the end.
        const splits: number[] = [];
        for (let k = min; k < max; k++) {
          const split = this.push({ op: 'split', x: -1, y: -1 });
          (this.prog[split] as { x: number }).x = split + 1;
          splits.push(split);
          this.emit(node.node);
        }
        for (const s of splits) (this.prog[s] as { y: number }).y = this.prog.length;
        return;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Pike VM: one pass over the input, each state at most once per position.

/**
 * The reference machine (the lazy DFA below replaced it; the tests compare the two), for one
 * program, its lists allocated once: `test` runs to completion without calling
 * out (a character test is a comparison or a one-code-point property check), so one instance per
 * pattern serves every call.
 */
class PikeVm {
  private clist: Int32Array;
  private nlist: Int32Array;
  /** A state's mark is the step it was last added at: membership in O(1) without clearing. */
  private readonly mark: Int32Array;
  private readonly stack: Int32Array;
  private step = 0;
  private size = 0;

  /** Steps (a state visited at a position) left in this match; see MAX_MATCH_STEPS. */
  private budget = 0;

  constructor(
    private readonly prog: Inst[],
    private readonly pattern: string,
    private readonly maxSteps: number,
  ) {
    const n = prog.length;
    this.clist = new Int32Array(n);
    this.nlist = new Int32Array(n);
    this.mark = new Int32Array(n);
    this.stack = new Int32Array(n * 2 + 2);
  }

  test(input: string): boolean {
    return this.run(input, 0, -1, new Int32Array(0), this.maxSteps);
  }

  /**
   * Runs from `pos` (after the code point `prev`) with `carried` the states the previous
   * character reached, not yet closed, and `budget` steps left: where the lazy DFA hands over
   * when its cache stops paying, with the same step count as if this machine had run throughout.
   */
  run(input: string, pos: number, prev: number, carried: Int32Array, budget: number): boolean {
    this.mark.fill(-1);
    this.step = 0;
    this.budget = budget;
    this.size = 0;
    const first = pos < input.length ? input.codePointAt(pos)! : -1;
    for (const pc of carried) if (this.add(this.clist, pc, prev, first)) return true;
    let csize = this.size;
    for (;;) {
      const cur = pos < input.length ? input.codePointAt(pos)! : -1;
      // Unanchored search: a new thread starts at every position (a state already live stays once).
      this.size = csize;
      if (this.add(this.clist, 0, prev, cur)) return true;
      csize = this.size;
      if (cur === -1) return false;
      const width = cur > 0xffff ? 2 : 1;
      const next = pos + width < input.length ? input.codePointAt(pos + width)! : -1;
      this.step++;
      this.size = 0;
      const clist = this.clist;
      for (let k = 0; k < csize; k++) {
        const inst = this.prog[clist[k]!] as Extract<Inst, { op: 'char' }>;
        if (inst.test(cur) && this.add(this.nlist, inst.next, cur, next)) return true;
      }
      this.clist = this.nlist;
      this.nlist = clist;
      csize = this.size;
      prev = cur;
      pos += width;
    }
  }

  /**
   * Adds `pc0` and every state reachable from it without consuming a character to `list` (its
   * length in `size`), with assertions judged between `prev` and `cur`. True if that reaches the
   * match state.
   */
  private add(list: Int32Array, pc0: number, prev: number, cur: number): boolean {
    const { prog, mark, stack, step } = this;
    let sp = 0;
    stack[sp++] = pc0;
    let matched = false;
    while (sp > 0) {
      const pc = stack[--sp]!;
      if (mark[pc] === step) continue;
      mark[pc] = step;
      if (--this.budget < 0) {
        throw overBudget(this.pattern, this.maxSteps);
      }
      const inst = prog[pc]!;
      switch (inst.op) {
        case 'jmp':
          stack[sp++] = inst.x;
          break;
        case 'split':
          stack[sp++] = inst.y;
          stack[sp++] = inst.x;
          break;
        case 'assert':
          if (holds(inst.kind, prev, cur)) stack[sp++] = inst.next;
          break;
        case 'match':
          matched = true;
          break;
        case 'char':
          list[this.size++] = pc;
          break;
      }
    }
    return matched;
  }
}

function holds(kind: AssertKind, prev: number, cur: number): boolean {
  switch (kind) {
    case 'begin_text':
      return prev === -1;
    case 'end_text':
      return cur === -1;
    case 'begin_line':
      return prev === -1 || prev === 10;
    case 'end_line':
      return cur === -1 || cur === 10;
    case 'word':
      return isWordChar(prev) !== isWordChar(cur);
    case 'not_word':
      return isWordChar(prev) === isWordChar(cur);
  }
}

function overBudget(pattern: string, maxSteps: number): RegexError {
  return new RegexError(pattern, `needs more than ${maxSteps} steps on this input`);
}

// ---------------------------------------------------------------------------------------------
// Lazy DFA: the Pike VM's state sets, each computed once and then reused.

/**
 * Transition cache per pattern, in slots (one state × one character class): about 8 bytes each,
 * so a pattern's cache stays under 100 KiB with its state sets. When full it starts over, which
 * costs time (transitions computed again) but never changes an answer or a step count.
 */
export const MAX_DFA_SLOTS = 8192;
/** Program counters stored across all cached state sets, bounded for the same reason. */
const MAX_DFA_SET_PCS = 16_384;

/** UTF-16 units encoded per run of the hot loop, first and at most; the shared buffer for them. */
const MIN_RUN = 64;
const MAX_RUN = 16_384;
const ENCODER = new TextEncoder();
const RUN_BYTES = new Uint8Array(MAX_RUN * 3);

/** Transitions computed in one match before the DFA may hand over to the Pike VM (`handOver`). */
const MIN_MISSES = 256;

const UNKNOWN = -1;
const MATCH = -2;
const NO_MATCH = -3;

/**
 * What an assertion can see of a neighbouring character: \b needs word or not, ^ and $ (multiline)
 * newline or not, \A and \z the ends of the text. Every code point of one category judges every
 * assertion alike, so a DFA state needs only the category of the character before it.
 */
const START = 0;
const NEWLINE = 1;
const WORD = 2;
const OTHER = 3;
/** A code point of each category, to judge assertions by (`holds`); -1 is the start. */
const REPRESENTATIVE = [-1, 10, 97, 32];

/**
 * Skipping counts characters as UTF-16 units, which are code points only where no surrogate is
 * (a skipped character is charged steps, and the Pike VM counts code points). A character class
 * with no repetition: RegExp scans it once, without backtracking.
 */
const SURROGATE = /[\uD800-\uDFFF]/;

function category(cp: number): number {
  return cp === 10 ? NEWLINE : isWordChar(cp) ? WORD : OTHER;
}

/**
 * A DFA state is what the Pike VM carries from one position to the next: the states reached by the
 * last character, before their epsilon closure (in the VM's order, no duplicates), with the
 * category of that character (assertions in the closure are judged between it and the next one);
 * the order is kept so that a match is found after the same steps as on the VM. A transition on a
 * character is the Pike VM's work at one position: close those states and the start state (the
 * search is unanchored) and step every character state on it. It is computed once, cached, and
 * charged on every use the steps it took (the states its closure visited), exactly as the Pike VM
 * would be: the budget, and so every answer and error, is the same as the NFA's whatever the
 * cache holds, on Node and in workerd alike; only the time per step drops.
 *
 * ASCII characters are grouped into classes that every character test and every assertion treats
 * alike (RE2's byte classes), so a state's row has one column per class plus one for the end of
 * the input; other code points have their transitions in a map keyed by state and code point.
 */
class LazyDfa {
  private readonly charClass = new Uint8Array(128);
  private width = 0;
  private maxStates = 0;
  private next = new Int32Array(0);
  private cost = new Int32Array(0);
  private wide = new Map<number, number>();
  private ids = new Map<string, number>();
  private sets: Int32Array[] = [];
  private cats: number[] = [];
  private storedPcs = 0;
  /**
   * Without assertions the character before a position changes nothing, so states are not split
   * by its category: fewer states, and the idle state (nothing carried) is one state, state 0.
   */
  private readonly assertions: boolean;
  /**
   * When no assertion is used and every way a match can start is one literal code point (`rm…`),
   * the idle state stays idle on every other character: `indexOf` finds the next place to look,
   * and each character skipped is charged what the idle state's transition costs.
   */
  private firstChar = '';
  private idleCost = 0;
  private pike: PikeVm | undefined;
  /** Set when the cache started over inside `transition`: its source state's id is gone. */
  private resetDuring = false;

  private readonly mark: Int32Array;
  private readonly taken: Int32Array;
  private readonly stack: Int32Array;
  private stamp = 0;

  constructor(
    private readonly prog: Inst[],
    private readonly pattern: string,
    private readonly maxSteps: number,
    private readonly slots: number,
  ) {
    const n = prog.length;
    this.mark = new Int32Array(n).fill(-1);
    this.taken = new Int32Array(n).fill(-1);
    this.stack = new Int32Array(n * 3 + 2); // the carried set, then two pushes per state visited
    this.assertions = prog.some((inst) => inst.op === 'assert');
  }

  private category(cp: number): number {
    return this.assertions ? category(cp) : OTHER;
  }

  test(input: string): boolean {
    if (this.width === 0) this.buildClasses();
    let budget = this.maxSteps;
    let state = 0; // the start state: nothing carried, before the text
    const n = input.length;
    let pos = 0;
    let skippable: boolean | undefined; // no surrogate in the input: decided on first use
    let misses = 0;
    for (;;) {
      // The hot loop: ASCII characters along cached transitions, one array read each.
      const { charClass, width, next, cost, firstChar } = this;
      if (firstChar !== '') skippable ??= !SURROGATE.test(input);
      if (skippable === true) {
        while (pos < n) {
          if (state === 0) {
            const to = input.indexOf(firstChar, pos);
            const skipped = (to === -1 ? n : to) - pos;
            budget -= skipped * this.idleCost;
            if (budget < 0) throw overBudget(this.pattern, this.maxSteps);
            pos += skipped;
            if (pos === n) break;
          }
          const cp = input.charCodeAt(pos);
          if (cp >= 128) break;
          const slot = state * width + charClass[cp]!;
          const to = next[slot]!;
          if (to < 0) break; // not cached yet, or the match
          budget -= cost[slot]!;
          if (budget < 0) throw overBudget(this.pattern, this.maxSteps);
          state = to;
          pos++;
        }
      } else {
        // The input read as UTF-8 in growing runs (TextEncoder, native): up to its first byte over
        // 127, a run's bytes are the input's code units one for one, and a typed array is read
        // faster than charCodeAt is called (much faster where a library has put String.prototype
        // in dictionary mode, as some Node clients do). A run stops at the first character the
        // loop cannot take; the next starts small, so the bytes encoded stay linear in the input.
        let run = MIN_RUN;
        bytes: while (pos < n) {
          const written = ENCODER.encodeInto(input.slice(pos, pos + run), RUN_BYTES).written;
          if (written === 0) break; // cannot happen (pos < n): never spin if it did
          for (let k = 0; k < written; k++) {
            const cp = RUN_BYTES[k]!;
            if (cp >= 128) break bytes;
            const slot = state * width + charClass[cp]!;
            const to = next[slot]!;
            if (to < 0) break bytes; // not cached yet, or the match
            budget -= cost[slot]!;
            if (budget < 0) throw overBudget(this.pattern, this.maxSteps);
            state = to;
            pos++;
          }
          run = Math.min(run * 2, MAX_RUN);
        }
      }
      // Anything else, one character (or the end of the input) at a time.
      let cp = -1;
      let to: number;
      let steps: number;
      if (pos < n) cp = input.codePointAt(pos)!;
      if (cp >= 128) {
        if (!this.wide.has(state * 0x110000 + cp) && ++misses > MIN_MISSES && misses * 8 > pos) {
          return this.handOver(input, pos, state, budget);
        }
        [to, steps] = this.wideStep(state, cp);
      } else {
        const slot = state * width + (cp === -1 ? width - 1 : charClass[cp]!);
        to = next[slot]!;
        steps = cost[slot]!;
        if (to === UNKNOWN) {
          if (++misses > MIN_MISSES && misses * 8 > pos) return this.handOver(input, pos, state, budget);
          [to, steps] = this.transition(state, cp);
          if (!this.resetDuring) {
            this.next[slot] = to;
            this.cost[slot] = steps;
          }
        }
      }
      budget -= steps;
      if (budget < 0) throw overBudget(this.pattern, this.maxSteps);
      if (to < 0) return to === MATCH;
      state = to;
      pos += cp > 0xffff ? 2 : 1;
    }
  }

  /**
   * The rest of the input on the Pike VM, from `state` at `pos`: computing a transition costs more
   * than the VM's step does (a state set is built and looked up), so when most characters need a
   * new one (a pattern whose DFA is exponential: `(a|b)*a(a|b){14}`) the VM is the faster of the
   * two. Same steps, same budget, same answer.
   */
  private handOver(input: string, pos: number, state: number, budget: number): boolean {
    this.pike ??= new PikeVm(this.prog, this.pattern, this.maxSteps);
    let prev = -1;
    if (pos > 0) {
      prev = input.charCodeAt(pos - 1);
      if (prev >= 0xdc00 && prev <= 0xdfff && pos > 1) {
        const high = input.charCodeAt(pos - 2);
        if (high >= 0xd800 && high <= 0xdbff) prev = input.codePointAt(pos - 2)!;
      }
    }
    return this.pike.run(input, pos, prev, this.sets[state]!, budget);
  }

  private wideStep(state: number, cp: number): [number, number] {
    const key = state * 0x110000 + cp;
    const packed = this.wide.get(key);
    if (packed !== undefined) return [Math.floor(packed / 0x10000) + NO_MATCH, packed % 0x10000];
    const [to, steps] = this.transition(state, cp);
    if (!this.resetDuring) {
      if (this.wide.size >= this.slots) this.wide.clear();
      // steps ≤ program size (10,000) < 2^16; to ≥ NO_MATCH.
      this.wide.set(key, (to - NO_MATCH) * 0x10000 + steps);
    }
    return [to, steps];
  }

  /**
   * ASCII classes: start from the assertion categories and split a class wherever a character test
   * tells two of its members apart. At most 128 classes; usually a handful.
   */
  private buildClasses(): void {
    const cls = this.charClass;
    for (let cp = 0; cp < 128; cp++) cls[cp] = this.category(cp);
    let count = 4;
    const renumber = new Int16Array(256);
    for (const inst of this.prog) {
      if (inst.op !== 'char') continue;
      renumber.fill(-1);
      let classes = 0;
      for (let cp = 0; cp < 128; cp++) {
        const key = cls[cp]! * 2 + (inst.test(cp) ? 1 : 0);
        if (renumber[key] === -1) renumber[key] = classes++;
        cls[cp] = renumber[key]!;
      }
      count = classes;
    }
    this.width = count + 1;
    this.maxStates = Math.max(4, Math.floor(this.slots / this.width));
    this.startOver();
    if (!this.assertions) this.findFirstChar();
  }

  /** Sets `firstChar` and `idleCost` when the idle state's only way out is one literal. */
  private findFirstChar(): void {
    const [to, steps] = this.transition(0, -1);
    if (to === MATCH) return; // the pattern matches the empty string: the first position answers
    const lits = new Set<number | undefined>();
    const stamp = this.stamp; // the closure `transition` just marked
    this.prog.forEach((inst, pc) => {
      if (inst.op === 'char' && this.mark[pc] === stamp) lits.add(inst.lit);
    });
    const [lit] = lits;
    if (lits.size !== 1 || lit === undefined) return;
    this.firstChar = String.fromCodePoint(lit);
    this.idleCost = steps;
  }

  /** Empties the cache; the start state is interned again as state 0. */
  private startOver(): void {
    this.ids.clear();
    this.sets = [];
    this.cats = [];
    this.storedPcs = 0;
    this.wide.clear();
    this.next = new Int32Array(this.width * 8).fill(UNKNOWN);
    this.cost = new Int32Array(this.width * 8);
    this.intern(new Int32Array(0), this.assertions ? START : OTHER);
  }

  private intern(set: Int32Array, cat: number): number {
    const key = `${cat}:${set.join(',')}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    if (this.sets.length >= this.maxStates || this.storedPcs + set.length > MAX_DFA_SET_PCS) {
      this.startOver();
      this.resetDuring = true;
    }
    const id = this.sets.length;
    this.ids.set(key, id);
    this.sets.push(set);
    this.cats.push(cat);
    this.storedPcs += set.length;
    if ((id + 1) * this.width > this.next.length) {
      const grown = new Int32Array(this.next.length * 2).fill(UNKNOWN);
      grown.set(this.next);
      this.next = grown;
      const grownCost = new Int32Array(this.cost.length * 2);
      grownCost.set(this.cost);
      this.cost = grownCost;
    }
    return id;
  }

  /**
   * The Pike VM's work at one position, from `state` on code point `cp` (-1: the end of the input):
   * the next state (or MATCH, or NO_MATCH at the end), and the NFA states visited on the way.
   */
  private transition(state: number, cp: number): [number, number] {
    this.resetDuring = false;
    const { prog, mark, taken, stack } = this;
    if (this.stamp > 0x3fff_ffff) {
      mark.fill(-1);
      taken.fill(-1);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    const prev = REPRESENTATIVE[this.cats[state]!]!;
    const cur = cp === -1 ? -1 : REPRESENTATIVE[this.category(cp)]!;
    const roots = this.sets[state]!;
    // The Pike VM's order, so that a match is found after the same number of steps: the carried
    // states one at a time, each closed before the next, then the start state (the search is
    // unanchored), checking for the match after each.
    let steps = 0;
    const chars: number[] = [];
    for (let r = 0; r <= roots.length; r++) {
      let sp = 0;
      stack[sp++] = r < roots.length ? roots[r]! : 0;
      let matched = false;
      while (sp > 0) {
        const pc = stack[--sp]!;
        if (mark[pc] === stamp) continue;
        mark[pc] = stamp;
        steps++;
        const inst = prog[pc]!;
        switch (inst.op) {
          case 'jmp':
            stack[sp++] = inst.x;
            break;
          case 'split':
            stack[sp++] = inst.y;
            stack[sp++] = inst.x;
            break;
          case 'assert':
            if (holds(inst.kind, prev, cur)) stack[sp++] = inst.next;
            break;
          case 'match':
            matched = true;
            break;
          case 'char':
            chars.push(pc);
            break;
        }
      }
      if (matched) return [MATCH, steps];
    }
    if (cp === -1) return [NO_MATCH, steps];
    // The states the character leads to, in the order the Pike VM would add them, once each.
    const out: number[] = [];
    for (const pc of chars) {
      const inst = prog[pc] as Extract<Inst, { op: 'char' }>;
      if (taken[inst.next] !== stamp && inst.test(cp)) {
        taken[inst.next] = stamp;
        out.push(inst.next);
      }
    }
    return [this.intern(Int32Array.from(out), this.category(cp)), steps];
  }
}
