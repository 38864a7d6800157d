/**
 * A TOML 1.0 reader for `setup codex --write`: it checks a whole config.toml (refusing what it
 * cannot read, with the line) and says where each table header and key/value sits in the text, so
 * the merge (./config-merge.ts) can edit hookgate's own entries in place and leave every other byte
 * as it was. Values: strings, `bigint` integers, `number` floats, booleans, dates and times as
 * {@link TomlDate} (their text), arrays and tables (null-prototype objects).
 */
import { HookgateError } from '../../lib/errors.js';

export class TomlDate {
  constructor(readonly text: string) {}
}

export type TomlValue = string | bigint | number | boolean | TomlDate | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

/** A `[table]` or `[[array.of.tables]]` header: `start` is its line's start, `table` what it opened. */
export interface TomlHeader {
  path: string[];
  array: boolean;
  start: number;
  table: TomlTable;
}

/** A `key = value` line: the table it set the last key in, and where the value's text is. */
export interface TomlEntry {
  table: TomlTable;
  key: string;
  start: number;
  valueStart: number;
  valueEnd: number;
}

export interface TomlDocument {
  data: TomlTable;
  headers: TomlHeader[];
  entries: TomlEntry[];
}

export class TomlSyntaxError extends HookgateError<'TOML_SYNTAX'> {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super('TOML_SYNTAX', `line ${line}: ${message}`);
    this.name = 'TomlSyntaxError';
  }
}

type Kind = 'implicit' | 'header' | 'dotted' | 'inline' | 'aot' | 'static';

const BARE = /[A-Za-z0-9_-]/;
const DEC = /^[+-]?(0|[1-9](_?\d)*)$/;
const HEX = /^0x[0-9A-Fa-f](_?[0-9A-Fa-f])*$/;
const OCT = /^0o[0-7](_?[0-7])*$/;
const BIN = /^0b[01](_?[01])*$/;
const FLOAT = /^[+-]?(0|[1-9](_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d(_?\d)*)?$/;
const SPECIAL = /^[+-]?(inf|nan)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;
const TIME = /^\d{2}:\d{2}:\d{2}(\.\d+)?$/;

export const isTable = (v: unknown): v is TomlTable =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof TomlDate);

export function parseToml(src: string): TomlDocument {
  let i = 0;
  const n = src.length;
  const kinds = new WeakMap<object, Kind>();
  const newTable = (kind: Kind): TomlTable => {
    const t = Object.create(null) as TomlTable;
    kinds.set(t, kind);
    return t;
  };
  const root = newTable('header');
  const headers: TomlHeader[] = [];
  const entries: TomlEntry[] = [];
  let current = root;

  const fail = (message: string, at = i): never => {
    throw new TomlSyntaxError(message, src.slice(0, at).split('\n').length);
  };
  const skipWs = () => {
    while (i < n && (src[i] === ' ' || src[i] === '\t')) i++;
  };
  const skipComment = () => {
    if (src[i] !== '#') return;
    while (i < n && src[i] !== '\n') {
      const c = src.charCodeAt(i);
      if ((c < 0x20 && c !== 0x09 && !(c === 0x0d && src[i + 1] === '\n')) || c === 0x7f)
        fail('control character in a comment');
      i++;
    }
  };
  const atNewline = () => src[i] === '\n' || (src[i] === '\r' && src[i + 1] === '\n');
  const skipNewline = () => {
    if (src[i] === '\r') i++;
    i++;
  };
  /** Whitespace, newlines and comments: inside arrays (and inline tables, as TOML 1.1 allows). */
  const skipBlank = () => {
    for (;;) {
      skipWs();
      if (src[i] === '#') skipComment();
      if (atNewline()) skipNewline();
      else return;
    }
  };
  const endOfLine = () => {
    skipWs();
    skipComment();
    if (i < n && !atNewline()) fail(`unexpected ${JSON.stringify(src[i])} after a statement`);
    if (i < n) skipNewline();
  };

  const escaped = (): string => {
    const c = src[i++];
    const simple: Record<string, string> = {
      b: '\b',
      t: '\t',
      n: '\n',
      f: '\f',
      r: '\r',
      e: '\x1b',
      '"': '"',
      '\\': '\\',
    };
    if (c !== undefined && Object.hasOwn(simple, c)) return simple[c]!;
    const len = c === 'u' ? 4 : c === 'U' ? 8 : c === 'x' ? 2 : 0;
    const hex = src.slice(i, i + len);
    if (len === 0 || !new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(hex)) return fail('invalid escape', i - 2);
    i += len;
    const cp = Number.parseInt(hex, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      fail('escape is not a Unicode scalar value', i - len);
    return String.fromCodePoint(cp);
  };
  const checkChar = (multiline: boolean) => {
    const c = src.charCodeAt(i);
    if (c === 0x7f || (c < 0x20 && c !== 0x09 && !(multiline && (c === 0x0a || c === 0x0d))))
      fail('control character in a string');
  };

  const basicString = (): string => {
    i++;
    let out = '';
    for (;;) {
      if (i >= n || atNewline()) fail('unterminated string');
      const c = src[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        i++;
        out += escaped();
        continue;
      }
      checkChar(false);
      out += c;
      i++;
    }
  };
  const literalString = (): string => {
    const start = ++i;
    while (i < n && src[i] !== "'") {
      if (atNewline()) fail('unterminated string');
      checkChar(false);
      i++;
    }
    if (i >= n) fail('unterminated string');
    return src.slice(start, i++);
  };
  const multiline = (quote: '"' | "'"): string => {
    i += 3;
    if (atNewline()) skipNewline();
    let out = '';
    for (;;) {
      if (i >= n) fail('unterminated multi-line string');
      if (src.startsWith(quote.repeat(3), i)) {
        let extra = 0;
        while (extra < 2 && src[i + 3 + extra] === quote) extra++;
        out += quote.repeat(extra);
        i += 3 + extra;
        return out;
      }
      const c = src[i]!;
      if (quote === '"' && c === '\\') {
        // A backslash at the end of a line trims the newline and the whitespace that follows.
        let j = i + 1;
        while (src[j] === ' ' || src[j] === '\t') j++;
        if (src[j] === '\n' || (src[j] === '\r' && src[j + 1] === '\n')) {
          i = j;
          while (i < n && (src[i] === ' ' || src[i] === '\t' || src[i] === '\n' || src[i] === '\r')) i++;
          continue;
        }
        i++;
        out += escaped();
        continue;
      }
      checkChar(true);
      out += c;
      i++;
    }
  };

  const simpleKey = (): string => {
    if (src[i] === '"') return basicString();
    if (src[i] === "'") return literalString();
    const start = i;
    while (i < n && BARE.test(src[i]!)) i++;
    if (i === start)
      fail(i >= n || atNewline() ? 'a key is missing' : `unexpected ${JSON.stringify(src[i])}`);
    return src.slice(start, i);
  };
  const key = (): string[] => {
    const parts = [simpleKey()];
    for (;;) {
      skipWs();
      if (src[i] !== '.') return parts;
      i++;
      skipWs();
      parts.push(simpleKey());
    }
  };

  const scalar = (): TomlValue => {
    const start = i;
    while (i < n && /[0-9A-Za-z_:.+-]/.test(src[i]!)) i++;
    let text = src.slice(start, i);
    // A date and a time may be separated by one space.
    if (DATE.test(text) && src[i] === ' ' && /^\d{2}:/.test(src.slice(i + 1, i + 4))) {
      i++;
      while (i < n && /[0-9A-Za-z_:.+-]/.test(src[i]!)) i++;
      text = src.slice(start, i);
    }
    if (text === 'true') return true;
    if (text === 'false') return false;
    if (DEC.test(text)) return BigInt(text.replaceAll('_', ''));
    if (HEX.test(text) || OCT.test(text) || BIN.test(text)) return BigInt(text.replaceAll('_', ''));
    if (SPECIAL.test(text))
      return text.endsWith('nan') ? Number.NaN : text.startsWith('-') ? -Infinity : Infinity;
    if (FLOAT.test(text) && /[.eE]/.test(text)) return Number(text.replaceAll('_', ''));
    if (DATE.test(text) || DATETIME.test(text) || TIME.test(text)) return new TomlDate(text);
    return fail(text === '' ? 'a value is missing' : `invalid value ${JSON.stringify(text)}`, start);
  };

  const value = (): TomlValue => {
    const c = src[i];
    if (c === '"') return src.startsWith('"""', i) ? multiline('"') : basicString();
    if (c === "'") return src.startsWith("'''", i) ? multiline("'") : literalString();
    if (c === '[') {
      i++;
      const arr: TomlValue[] = [];
      kinds.set(arr, 'static');
      for (;;) {
        skipBlank();
        if (src[i] === ']') {
          i++;
          return arr;
        }
        arr.push(value());
        skipBlank();
        if (src[i] === ',') i++;
        else if (src[i] !== ']') fail('expected , or ] in an array');
      }
    }
    if (c === '{') {
      i++;
      const t = newTable('inline');
      skipBlank();
      if (src[i] === '}') {
        i++;
        return t;
      }
      for (;;) {
        skipBlank();
        if (src[i] === '}') {
          i++;
          return t;
        }
        keyValue(t, true);
        skipBlank();
        if (src[i] === ',') i++;
        else if (src[i] === '}') {
          i++;
          return t;
        } else fail('expected , or } in an inline table');
      }
    }
    return scalar();
  };

  function keyValue(table: TomlTable, inline: boolean): void {
    const start = i;
    const parts = key();
    skipWs();
    if (src[i] !== '=') fail('expected = after a key');
    i++;
    skipWs();
    const valueStart = i;
    const v = value();
    const valueEnd = i;
    let t = table;
    for (const k of parts.slice(0, -1)) {
      if (!Object.hasOwn(t, k)) {
        const sub = newTable(inline ? 'inline' : 'dotted');
        t[k] = sub;
        t = sub;
        continue;
      }
      const sub = t[k];
      if (!isTable(sub) || kinds.get(sub) !== (inline ? 'inline' : 'dotted'))
        fail(`cannot add keys to ${JSON.stringify(k)}: it is already defined`, start);
      t = sub as TomlTable;
    }
    const last = parts[parts.length - 1]!;
    if (Object.hasOwn(t, last)) fail(`duplicate key ${JSON.stringify(last)}`, start);
    t[last] = v;
    if (!inline) entries.push({ table: t, key: last, start, valueStart, valueEnd });
  }

  const header = () => {
    const start = src.lastIndexOf('\n', i - 1) + 1;
    const array = src[i + 1] === '[';
    i += array ? 2 : 1;
    skipWs();
    const path = key();
    skipWs();
    if (!src.startsWith(array ? ']]' : ']', i)) fail(`expected ${array ? ']]' : ']'} after a table name`);
    i += array ? 2 : 1;
    let t = root;
    for (const k of path.slice(0, -1)) {
      if (!Object.hasOwn(t, k)) {
        const sub = newTable('implicit');
        t[k] = sub;
        t = sub;
        continue;
      }
      const sub = t[k];
      if (Array.isArray(sub) && kinds.get(sub) === 'aot') t = sub[sub.length - 1] as TomlTable;
      else if (isTable(sub) && kinds.get(sub) !== 'inline') t = sub;
      else fail(`${JSON.stringify(k)} is not a table`, start);
    }
    const last = path[path.length - 1]!;
    const existing = Object.hasOwn(t, last) ? t[last] : undefined;
    let table: TomlTable;
    if (array) {
      table = newTable('header');
      if (existing === undefined) {
        const arr: TomlValue[] = [table];
        kinds.set(arr, 'aot');
        t[last] = arr;
      } else if (Array.isArray(existing) && kinds.get(existing) === 'aot') existing.push(table);
      else fail(`${JSON.stringify(last)} is already defined, not as an array of tables`, start);
    } else if (existing === undefined) {
      table = newTable('header');
      t[last] = table;
    } else if (isTable(existing) && kinds.get(existing) === 'implicit') {
      kinds.set(existing, 'header');
      table = existing;
    } else return fail(`table ${JSON.stringify(path.join('.'))} is defined twice`, start);
    headers.push({ path, array, start, table });
    current = table;
  };

  if (src.charCodeAt(0) === 0xfeff) i = 1;
  while (i < n) {
    skipWs();
    if (i >= n) break;
    if (src[i] === '#' || atNewline()) {
      endOfLine();
      continue;
    }
    if (src[i] === '[') header();
    else keyValue(current, false);
    endOfLine();
  }
  return { data: root, headers, entries };
}

/** Same data: tables by their keys, arrays in order, NaN equal to NaN, dates by their text. */
export function tomlEqual(a: TomlValue, b: TomlValue): boolean {
  if (a instanceof TomlDate || b instanceof TomlDate)
    return a instanceof TomlDate && b instanceof TomlDate && a.text === b.text;
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, k) => tomlEqual(x, b[k]!))
    );
  if (isTable(a) || isTable(b)) {
    if (!isTable(a) || !isTable(b)) return false;
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && tomlEqual(a[k]!, b[k]!))
    );
  }
  return Object.is(a, b);
}
