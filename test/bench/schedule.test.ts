import { describe, expect, it } from 'vitest';
import { groupedByFloor } from '../../bench/lib/schedule.js';

/** The bench's paths as its cells list them: floors first, then hookgate's, each with small and large. */
const PATHS: Array<[string, string[]]> = [
  ['stdio', []],
  ['ws', []],
  ['http', []],
  ['hono', ['http']],
  ['chain', []],
  ['gw-http', ['hono']],
  ['gw-cc', ['hono']],
  ['supergateway-mcp', []],
  ['gw-mcp', ['supergateway-mcp']],
  ['gw-ws', ['ws']],
  ['gw-ws-stdio', ['stdio', 'ws']],
  ['bridge', ['stdio', 'ws']],
  ['bridge-stdio', ['chain']],
  ['gw-http-nocache', ['hono']],
];
const cells = PATHS.flatMap(([id, floors]) =>
  ['small', 'large'].map((msg) => ({ spec: { id, floors }, msg })),
);
const names = (cs: typeof cells) => cs.map((c) => `${c.spec.id} ${c.msg}`);

describe('groupedByFloor (the order of a round’s throughput windows)', () => {
  it('puts every path right after its floor, and a path with two floors after the last it names', () => {
    expect(names(groupedByFloor(cells))).toEqual([
      'stdio small',
      'stdio large',
      'ws small',
      'ws large',
      'gw-ws small',
      'gw-ws large',
      'gw-ws-stdio small',
      'gw-ws-stdio large',
      'bridge small',
      'bridge large',
      'http small',
      'http large',
      'hono small',
      'hono large',
      'gw-http small',
      'gw-http large',
      'gw-cc small',
      'gw-cc large',
      'gw-http-nocache small',
      'gw-http-nocache large',
      'chain small',
      'chain large',
      'bridge-stdio small',
      'bridge-stdio large',
      'supergateway-mcp small',
      'supergateway-mcp large',
      'gw-mcp small',
      'gw-mcp large',
    ]);
  });

  it('in a reversed round, keeps the groups together, in reverse', () => {
    const got = names(groupedByFloor([...cells].reverse()));
    expect(got).toEqual(names(groupedByFloor(cells)).reverse());
  });

  it('leaves every window in exactly once, and a set without floors in its order', () => {
    const got = groupedByFloor(cells);
    expect(new Set(got)).toEqual(new Set(cells));
    expect(got).toHaveLength(cells.length);
    const own = cells.filter((c) => c.spec.floors.length === 0);
    expect(groupedByFloor(own)).toEqual(own);
  });

  it('a path whose floor was not selected (--only) keeps its place', () => {
    const only = cells.filter((c) => c.spec.id === 'gw-http' || c.spec.id === 'ws');
    expect(names(groupedByFloor(only))).toEqual(['ws small', 'ws large', 'gw-http small', 'gw-http large']);
  });
});
