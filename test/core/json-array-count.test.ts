import { describe, expect, it } from 'vitest';
import { countArrayElements, firstJsonChar } from '../../src/core/json-array-count.js';

describe('countArrayElements', () => {
  it('counts the top-level elements of an array, whatever they hold', () => {
    expect(countArrayElements('[]', 10)).toBe(0);
    expect(countArrayElements(' [ ] ', 10)).toBe(0);
    expect(countArrayElements('[1]', 10)).toBe(1);
    expect(countArrayElements('[1,2 , 3]', 10)).toBe(3);
    expect(countArrayElements('[{"a":[1,2,3]},[4,5],"x,y]",null]', 10)).toBe(4);
    // Quotes, brackets and commas inside strings, escaped quotes and backslashes.
    expect(countArrayElements('["a\\\\", "b\\"],[", "{", "}"]', 10)).toBe(4);
    expect(countArrayElements('\n\t[\n{"k": "v"}\n,\n{}\n]', 10)).toBe(2);
  });

  it('stops at limit + 1, reading nothing after it', () => {
    expect(countArrayElements('[1,2,3,4,5]', 2)).toBe(3);
    expect(countArrayElements('[{},{},{}, not json at all', 2)).toBe(3);
    expect(countArrayElements(`[${'{"a":1},'.repeat(1000)}{}]`, 100)).toBe(101);
  });

  it('is undefined for anything but an array', () => {
    expect(countArrayElements('{"a":[1,2]}', 10)).toBeUndefined();
    expect(countArrayElements('"[1,2]"', 10)).toBeUndefined();
    expect(countArrayElements('', 10)).toBeUndefined();
  });
});

describe('firstJsonChar', () => {
  it('skips JSON whitespace only', () => {
    expect(firstJsonChar(' \t\r\n[1]')).toBe('[');
    expect(firstJsonChar('{}')).toBe('{');
    expect(firstJsonChar('   ')).toBe('');
    expect(firstJsonChar('\u00a0[')).toBe('\u00a0');
  });
});
