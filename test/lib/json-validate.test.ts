import { describe, expect, it } from 'vitest';
import { requestText, template } from '../../bench/lib/messages.js';
import { controlFree, JsonValidator, MAX_DEPTH, shownValid } from '../../src/lib/json-validate.js';
import { seededRandom } from '../helpers/seeded-random.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const nestedArrays = (depth: number) => '['.repeat(depth) + '0' + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '0' + '}'.repeat(depth);

describe('shownValid', () => {
  it.each([
    ['true', 'true'],
    ['false', 'false'],
    ['null', 'null'],
    ['zero', '0'],
    ['minus zero', '-0'],
    ['integer', '123'],
    ['negative fraction', '-9.75'],
    ['exponent with plus', '1.5e+10'],
    ['upper-case exponent with minus', '1E-2'],
    ['exponent without sign', '2E0'],
    ['minus zero with fraction and exponent', '-0.0e0'],
    ['more digits than a double holds', '12345678901234567890'],
    ['empty string', '""'],
    ['every simple escape', String.raw`"\"\\\/\b\f\n\r\t"`],
    ['unicode escapes in both cases', String.raw`"\u00e9\u00E9\uABCD\uabcd\uAbCd"`],
    ['lone high surrogate escape', String.raw`"\ud800"`],
    ['lone low surrogate escape before a high one', String.raw`"\udfff\uD800"`],
    ['surrogate pair escape', String.raw`"\ud83d\ude00"`],
    ['raw non-ASCII and emoji', '"é中😀 ü"'],
    ['raw lone surrogate', '"a\ud800b"'],
    ['raw DEL and line separator', '"\u007f\u2028"'],
    ['quote after two backslashes', String.raw`"a\\"`],
    ['quote after four backslashes', String.raw`"a\\\\"`],
    ['escaped backslash then escaped quote', String.raw`"\\\""`],
    ['even backslash runs in an array', String.raw`["\\","\\\\","",""]`],
    ['even backslash runs in a key and value', String.raw`{"k\\":"\\\\","\\\"":1}`],
    ['brackets and commas inside strings', '{"a":"}],[{:","b":["]"]}'],
    ['empty object', '{}'],
    ['empty array', '[]'],
    ['empty containers nested', '[{},[],[[]],{"a":{}}]'],
    ['nested arrays and objects', '[1,[2,[3,{"a":[{}]}]],{"b":{"c":null,"d":[true,false]}}]'],
    ['spaces between every token', '{ "a" : [ 1 , { "b" : null } , [ ] , { } ] , "c" : "d" , "e" : -1.5e3 }'],
    ['spaces inside empty containers', '[ { } , [ ] ]'],
    ['leading and trailing spaces', '   [ true ]   '],
    ['arrays nested MAX_DEPTH deep', nestedArrays(MAX_DEPTH)],
    ['objects nested MAX_DEPTH deep', nestedObjects(MAX_DEPTH)],
  ])('%s', (_name, text) => {
    expect(parses(text)).toBe(true);
    expect(shownValid(text)).toBe(true);
    const validator = new JsonValidator(text);
    expect(validator.valueEnd(validator.skipSpace(0))).toBe(text.trimEnd().length);
  });

  it.each([
    // [name, text, whether JSON.parse accepts it]
    ['leading zero', '01', false],
    ['leading zero after minus', '-01', false],
    ['dot without digits after', '1.', false],
    ['dot without digits before', '.5', false],
    ['plus sign', '+1', false],
    ['minus alone', '-', false],
    ['minus then space', '- 1', false],
    ['exponent without digits', '1e', false],
    ['exponent sign without digits', '1e+', false],
    ['fraction then exponent without digits', '1.5E', false],
    ['fraction without digits before an exponent', '[1.e5]', false],
    ['hex', '0x1', false],
    ['NaN', 'NaN', false],
    ['Infinity', 'Infinity', false],
    ['minus Infinity', '-Infinity', false],
    ['truncated true', 'tru', false],
    ['truncated null', 'nul', false],
    ['truncated false in an array', '[fals]', false],
    ['capitalised literal', 'True', false],
    ['single quotes', "'single'", false],
    ['trailing comma in an array', '[1,]', false],
    ['trailing comma in an object', '{"a":1,}', false],
    ['two commas', '[1,,2]', false],
    ['comma alone in an array', '[,]', false],
    ['comma alone in an object', '{,}', false],
    ['missing colon', '{"a" 1}', false],
    ['two colons', '{"a"::1}', false],
    ['comma for a colon', '{"a",1}', false],
    ['unquoted key', '{a:1}', false],
    ['number as key', '{1:1}', false],
    ['missing comma in an array', '[1 2]', false],
    ['missing comma in an object', '{"a":1 "b":2}', false],
    ['two values', '1 2', false],
    ['unterminated string', '"abc', false],
    ['string ended only by an escaped quote', String.raw`"a\"`, false],
    ['string ended by a quote after three backslashes', String.raw`["a\\\"]`, false],
    ['unknown escape', String.raw`"\x"`, false],
    ['upper-case U escape', String.raw`"\U0041"`, false],
    ['non-hex digit in a unicode escape', String.raw`"\u12G4"`, false],
    ['short unicode escape then the closing quote', String.raw`"\u12"`, false],
    ['short unicode escape at the end of the text', String.raw`"\u12`, false],
    ['raw control character in a string', '"a\u0001b"', false],
    ['raw tab in a string', '"a\tb"', false],
    ['raw line feed in a string', '"a\nb"', false],
    ['block comment', '[1]/*c*/', false],
    ['line comment', '// c\n1', false],
    ['trailing garbage after a value', '[1] x', false],
    ['trailing garbage after a literal', 'truex', false],
    ['one closing brace too many', '{}}', false],
    ['lone closing bracket', ']', false],
    ['unclosed array', '[1', false],
    ['unclosed object', '{"a":1', false],
    ['mismatched brackets', '[1}', false],
    ['empty text', '', false],
    ['spaces only', '   ', false],
    ['no-break space before a value', '\u00a0[]', false],
    ['byte order mark before a value', '\ufeff[]', false],
    // Valid JSON the validator leaves to JSON.parse (see the top of json-validate.ts).
    ['tab between tokens', '[1,\t2]', true],
    ['line feed between tokens', '{"a":\n1}', true],
    ['carriage return and line feed before a value', '\r\n[]', true],
    ['arrays nested deeper than MAX_DEPTH', nestedArrays(MAX_DEPTH + 1), true],
    ['objects nested deeper than MAX_DEPTH', nestedObjects(MAX_DEPTH + 1), true],
  ])('not shown: %s', (_name, text, valid) => {
    expect(parses(text)).toBe(valid);
    expect(shownValid(text)).toBeUndefined();
  });

  it('takes the bench large message (a 64 KiB before_llm) whole and finds its params members', () => {
    const text = requestText(template('large'), 100000);
    expect(text.length).toBeGreaterThan(60 * 1024);
    expect(shownValid(text)).toBe(true);
    const top = new JsonValidator(text).members(0, 'params');
    expect(top?.end).toBe(text.length);
    const parsed = JSON.parse(text);
    const params = top?.members.find((m) => m.key === 'params');
    expect(params?.members?.map((m) => m.key)).toEqual(Object.keys(parsed.params));
    for (const m of params?.members ?? []) {
      expect(JSON.parse(text.slice(m.start, m.end))).toEqual(parsed.params[m.key]);
    }
  });
});

describe('JsonValidator', () => {
  it('gives the end of a value that starts inside a text, -1 when it is not one', () => {
    expect(new JsonValidator('xx[1, "a"] ,').valueEnd(2)).toBe(10);
    expect(new JsonValidator('{"a":[1]}').valueEnd(5)).toBe(8);
    expect(new JsonValidator('[1,]').valueEnd(0)).toBe(-1);
    expect(new JsonValidator('[1 2]').valueEnd(0)).toBe(-1);
    expect(new JsonValidator(' 1').valueEnd(0)).toBe(-1);
    expect(new JsonValidator(nestedArrays(MAX_DEPTH + 1)).valueEnd(0)).toBe(-1);
  });

  it('skips spaces only, not the other JSON whitespace', () => {
    expect(new JsonValidator('a   b').skipSpace(1)).toBe(4);
    expect(new JsonValidator('ab').skipSpace(1)).toBe(1);
    expect(new JsonValidator('   ').skipSpace(0)).toBe(3);
    expect(new JsonValidator(' \t ').skipSpace(0)).toBe(1);
    expect(new JsonValidator('\n').skipSpace(0)).toBe(0);
  });

  it('lists the members of an object in text order with where their values are', () => {
    const text = String.raw`{"a":1, "b" : [1,{"c":2}] ,"c":{"d":"}"},"e":"x\"y","a":null}`;
    const result = new JsonValidator(text).members(0);
    expect(result?.end).toBe(text.length);
    const found = result?.members.map((m) => [m.key, text.slice(m.start, m.end), m.members]);
    expect(found).toEqual([
      ['a', '1', undefined],
      ['b', '[1,{"c":2}]', undefined],
      ['c', '{"d":"}"}', undefined],
      ['e', String.raw`"x\"y"`, undefined],
      ['a', 'null', undefined],
    ]);
  });

  it('expands the members of the named member when it is an object', () => {
    const text = '{"id":1,"params":{ "x" : [1] , "y":{"z":2} },"p":{"q":1}}';
    const result = new JsonValidator(text).members(0, 'params');
    const params = result?.members.find((m) => m.key === 'params');
    expect(text.slice(params!.start, params!.end)).toBe('{ "x" : [1] , "y":{"z":2} }');
    expect(params?.members?.map((m) => [m.key, text.slice(m.start, m.end)])).toEqual([
      ['x', '[1]'],
      ['y', '{"z":2}'],
    ]);
    expect(result?.members.find((m) => m.key === 'p')?.members).toBeUndefined();

    const notAnObject = new JsonValidator('{"params":[{"a":1}]}').members(0, 'params');
    expect(notAnObject?.members[0].members).toBeUndefined();
    expect(notAnObject?.members[0].end).toBe(19);
  });

  it('lists no members of an empty object', () => {
    expect(new JsonValidator('{}').members(0)).toEqual({ members: [], end: 2 });
    expect(new JsonValidator('[{ }]').members(1)).toEqual({ members: [], end: 4 });
  });

  it('gives no members for keys with escapes, where they count, or for what is not an object', () => {
    expect(new JsonValidator(String.raw`{"par\u0061ms":{}}`).members(0)).toBeUndefined();
    expect(new JsonValidator(String.raw`{"a\\":1}`).members(0)).toBeUndefined();
    expect(new JsonValidator(String.raw`{"params":{"\"":1}}`).members(0, 'params')).toBeUndefined();
    // Keys deeper than the listed and expanded objects are only checked as JSON.
    const deeper = new JsonValidator(String.raw`{"a":{"\"":1},"params":{"b":{"\u0063":2}}}`);
    expect(deeper.members(0, 'params')?.members.map((m) => m.key)).toEqual(['a', 'params']);

    expect(new JsonValidator('[1]').members(0)).toBeUndefined();
    expect(new JsonValidator(' {}').members(0)).toBeUndefined();
    expect(new JsonValidator('{"a":1,}').members(0)).toBeUndefined();
    expect(new JsonValidator('{"a" 1}').members(0)).toBeUndefined();
    expect(new JsonValidator('{"a":[1,]}').members(0)).toBeUndefined();
    expect(new JsonValidator('{"a":1').members(0)).toBeUndefined();
    expect(new JsonValidator('{"params":{"a":01}}').members(0, 'params')).toBeUndefined();
  });
});

describe('controlFree', () => {
  it.each([
    ['', true],
    ['a b', true],
    ['\u007f\u2028\u00a0😀', true],
    ['a\tb', false],
    ['a\nb', false],
    ['\r', false],
    ['\u0000', false],
    ['x\u001f', false],
  ])('%j: %s', (text, expected) => {
    expect(controlFree(text)).toBe(expected);
  });
});

/** A number as the text spells it, so that every spelling JSON allows is tried. */
class NumberText {
  constructor(readonly text: string) {}
}

type Node = null | boolean | string | NumberText | Node[] | Map<string, Node>;

const STRING_PIECES = [
  'a',
  'Z',
  'u',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '\b',
  '\f',
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '中',
  '\u2028',
  '😀',
  '\ud800',
  '\udfff',
];
const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const MUTATION_CHARS = [...'{}[],:"\\ 0123456789eE.+-tfnu'];

class Fuzz {
  private readonly random: () => number;
  /** The objects whose keys were written with an escape: members() may not list those. */
  readonly escapedKeys = new WeakSet<object>();

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  below(n: number): number {
    return Math.floor(this.random() * n);
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  digits(min: number, max: number, first = '0123456789'): string {
    let s = this.pick([...first]);
    const n = min - 1 + this.below(max - min + 1);
    for (let i = 0; i < n; i++) s += String.fromCharCode(0x30 + this.below(10));
    return s;
  }

  number(): NumberText {
    let text = this.chance(0.3) ? '-' : '';
    text += this.chance(0.3) ? '0' : this.digits(1, 20, '123456789');
    if (this.chance(0.3)) text += `.${this.digits(1, 5)}`;
    if (this.chance(0.3)) text += this.pick(['e', 'E']) + this.pick(['', '+', '-']) + this.digits(1, 3);
    return new NumberText(text);
  }

  string(maxLength: number): string {
    let s = '';
    const n = this.below(maxLength + 1);
    for (let i = 0; i < n; i++) s += this.pick(STRING_PIECES);
    return s;
  }

  value(depth: number): Node {
    const containers = depth < 5 ? 0.5 - depth * 0.1 : 0;
    if (this.chance(containers)) {
      const n = this.below(5);
      if (this.chance(0.5)) return Array.from({ length: n }, () => this.value(depth + 1));
      const object = new Map<string, Node>();
      for (let i = 0; i < n; i++) {
        const key = this.chance(0.7)
          ? this.pick(['id', 'a', 'b', 'params', '10', '2', '__proto__'])
          : this.string(4);
        if (!object.has(key)) object.set(key, this.value(depth + 1));
      }
      return object;
    }
    switch (this.below(4)) {
      case 0:
        return this.pick([null, true, false]);
      case 1:
        return this.number();
      default:
        return this.string(12);
    }
  }

  /** One code unit as a JSON string may spell it: raw where allowed, else (or sometimes) escaped. */
  private unit(c: string): string {
    const code = c.charCodeAt(0);
    const mustEscape = c === '"' || c === '\\' || code < 0x20;
    if (!mustEscape && !this.chance(0.15)) return c;
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined && this.chance(0.6)) return simple;
    const hex = code.toString(16).padStart(4, '0');
    return `\\u${[...hex].map((h) => (this.chance(0.5) ? h.toUpperCase() : h)).join('')}`;
  }

  quoted(s: string): string {
    let out = '"';
    for (let i = 0; i < s.length; i++) out += this.unit(s[i]);
    return `${out}"`;
  }

  /** Spaces between tokens when `spaced`: only U+0020, the one whitespace the validator reads. */
  gap(spaced: boolean): string {
    return spaced && this.chance(0.4) ? ' '.repeat(1 + this.below(3)) : '';
  }

  write(node: Node, spaced: boolean): string {
    const g = () => this.gap(spaced);
    if (node === null) return 'null';
    if (typeof node === 'boolean') return String(node);
    if (typeof node === 'string') return this.quoted(node);
    if (node instanceof NumberText) return node.text;
    if (Array.isArray(node)) {
      if (node.length === 0) return `[${g()}]`;
      return `[${g()}${node.map((v) => this.write(v, spaced)).join(`${g()},${g()}`)}${g()}]`;
    }
    if (node.size === 0) return `{${g()}}`;
    const members: string[] = [];
    for (const [key, value] of node) {
      const k = this.quoted(key);
      if (k.includes('\\')) this.escapedKeys.add(node);
      members.push(`${k}${g()}:${g()}${this.write(value, spaced)}`);
    }
    return `{${g()}${members.join(`${g()},${g()}`)}${g()}}`;
  }

  mutate(text: string): string {
    const at = this.below(text.length + 1);
    const c = this.chance(0.75)
      ? this.pick(MUTATION_CHARS)
      : String.fromCharCode(this.chance(0.5) ? this.below(0x80) : this.below(0x10000));
    switch (this.below(3)) {
      case 0:
        return text.slice(0, at) + text.slice(at + 1);
      case 1:
        return text.slice(0, at) + c + text.slice(at);
      default:
        return text.slice(0, at) + c + text.slice(at + 1);
    }
  }
}

describe('shownValid against JSON.parse on generated texts', () => {
  const VALUES = 3000;
  const MUTANTS_PER_TEXT = 6;

  it('shows generated JSON valid, finds its members, and never accepts a mutant JSON.parse refuses', () => {
    const fuzz = new Fuzz(0x5eed);
    const problems: string[] = [];
    const report = (problem: string, text: string) => {
      if (problems.length < 10) problems.push(`${problem}: ${JSON.stringify(text)}`);
    };
    let objects = 0;
    let membersListed = 0;
    let mutants = 0;
    let mutantsShown = 0;
    let mutantsRefused = 0;
    let mutantsInvalid = 0;

    for (let n = 0; n < VALUES; n++) {
      // Mostly objects at the top, as messages are, so that members() is exercised often.
      let node = fuzz.value(0);
      if (n % 2 === 0 && !(node instanceof Map)) node = new Map([['params', node]]);
      const spaced = fuzz.chance(0.5);
      const written = fuzz.write(node, spaced);
      const text = spaced ? `${fuzz.gap(true)}${written}${fuzz.gap(true)}` : written;
      const parsed = JSON.parse(text);
      const texts = [text, JSON.stringify(parsed)];

      for (const t of texts) {
        if (!controlFree(t)) report('generated text with a control character', t);
        else if (shownValid(t) !== true) report('valid text not shown valid', t);
      }

      if (node instanceof Map) {
        objects++;
        const expand = fuzz.pick([...node.keys(), 'params']);
        const validator = new JsonValidator(text);
        const result = validator.members(validator.skipSpace(0), expand);
        const inner = node.get(expand);
        const escaped = fuzz.escapedKeys.has(node) || (inner instanceof Map && fuzz.escapedKeys.has(inner));
        if (result === undefined) {
          if (!escaped) report('members not listed, though no key has an escape', text);
        } else {
          membersListed++;
          if (validator.skipSpace(result.end) !== text.length) report('members end elsewhere', text);
          const keys = result.members.map((m) => m.key);
          if (JSON.stringify(keys) !== JSON.stringify([...node.keys()])) report('member keys differ', text);
          for (const m of result.members) {
            const value = JSON.parse(text.slice(m.start, m.end));
            expect(value, text).toEqual(parsed[m.key]);
            if (inner instanceof Map && m.key === expand) {
              if (m.members === undefined) {
                report('expanded member not listed', text);
                continue;
              }
              for (const e of m.members)
                expect(JSON.parse(text.slice(e.start, e.end)), text).toEqual(value[e.key]);
            } else if (m.members !== undefined) report(`member ${m.key} expanded unasked`, text);
          }
        }
      }

      for (let k = 0; k < MUTANTS_PER_TEXT; k++) {
        const mutant = fuzz.mutate(text);
        mutants++;
        const shown = shownValid(mutant) === true;
        const accepted = parses(mutant);
        if (shown) mutantsShown++;
        else mutantsRefused++;
        if (!accepted) mutantsInvalid++;
        if (shown && !accepted) report('shown valid but JSON.parse refuses it', mutant);
        // Nothing generated nests near MAX_DEPTH: a control-free text JSON.parse takes must be shown.
        if (!shown && accepted && controlFree(mutant)) report('valid mutant not shown valid', mutant);
        if (!accepted && mutant.trimStart().startsWith('{')) {
          const validator = new JsonValidator(mutant);
          if (controlFree(mutant)) {
            const result = validator.members(validator.skipSpace(0), 'params');
            if (result !== undefined && validator.skipSpace(result.end) === mutant.length)
              report('members listed for a text JSON.parse refuses', mutant);
          }
        }
      }
    }

    expect(problems).toEqual([]);
    // Both verdicts must be common, or the comparison above shows little.
    expect(objects).toBeGreaterThan(VALUES / 2);
    expect(membersListed).toBeGreaterThan(objects / 4);
    expect(mutantsShown).toBeGreaterThan(mutants / 10);
    expect(mutantsRefused).toBeGreaterThan(mutants / 10);
    expect(mutantsInvalid).toBeGreaterThan(mutants / 10);
  });
});
