/**
 * The cel-spec conformance tests that apply to gateway conditions (the suites of the features a
 * condition can use; extracted by scripts/extract-cel-conformance.mjs), run through the same
 * compile and evaluate as every condition. Each expected value is checked as a condition:
 * `(expr) == value && type(expr) == type`; an expected error must be a load or run-time error.
 * The known differences are listed below with the reason; a case that starts to pass after an
 * engine upgrade fails this test too, so the list stays true.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/errors.js';
import { compileCondition, evaluate } from '../../../src/policy/conditions/index.js';
import { BASE_VIEW } from './cases.js';

interface SpecCase {
  name: string;
  expr: string;
  value?: string;
  type?: string;
  error?: true;
}

const CASES: SpecCase[] = JSON.parse(
  readFileSync(new URL('../../fixtures/cel-spec/conformance-subset.json', import.meta.url), 'utf8'),
);

const receiverNames = ['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let']
  .concat(['loop', 'package', 'namespace', 'return', 'var', 'void', 'while'])
  .map((n) => `parse/receiver_function_names/${n}`);

/** Cases that do not hold, by reason. */
const KNOWN: Record<string, string[]> = {
  'by design: a condition may name only the view variables, checked at load': [
    'basic/variables/unbound_is_runtime_error',
    'basic/functions/unbound_is_runtime_error',
    ...receiverNames,
  ],
  'by design: expressions nest at most 32 deep': ['parse/nest/parens'],
  'by design: types are checked at load (the spec runs these unchecked)': [
    'logic/AND/short_circuit_type_left',
    'logic/AND/short_circuit_type_right',
    'logic/OR/short_circuit_type_left',
    'logic/OR/short_circuit_type_right',
  ],
  'engine: no equality across numeric types (1.0 == 1 is refused at load, dyn(3u) in [3] is false)': [
    'comparisons/eq_literal/eq_list_mixed_type_numbers',
    'comparisons/eq_literal/not_eq_list_length',
    'comparisons/eq_literal/eq_map_mixed_type_numbers',
    'comparisons/eq_literal/eq_mixed_types',
    'comparisons/eq_literal/eq_list_elem_mixed_types',
    'comparisons/ne_literal/ne_mixed_types',
    'fields/qualified_identifier_resolution/map_key_float',
    'fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous',
    'lists/index/zero_based_uint',
    'lists/in/uint_in_ints',
    'lists/in/uint_in_doubles',
    'lists/in/int_in_uints',
    'lists/in/double_in_uints',
  ],
  'engine: comparisons at the edge of int64 and double precision': [
    'comparisons/lt_literal/not_lt_dyn_int_big_lossy_double',
    'comparisons/gt_literal/not_gt_dyn_big_double_int',
    'comparisons/lte_literal/lte_dyn_big_double_int',
    'comparisons/gte_literal/gte_dyn_int_big_lossy_double',
  ],
  'engine: overflow and out-of-range conversions give a value instead of an error': [
    'integer_math/int64_math/int64_min_negate',
    'integer_math/int64_math/int64_min_negate_div',
    'conversions/int/double_int_max_range',
    'conversions/int/double_int_min_range',
    'conversions/int/double_range',
    'conversions/uint/double_uint_max_range',
    'timestamps/timestamp_range/sub_time_duration_over',
    'timestamps/timestamp_range/sub_time_duration_under',
  ],
  'engine: conversions it lacks (int(uint), int(timestamp), string(timestamp), timestamp(timestamp))': [
    'conversions/int/uint',
    'conversions/int/uint_zero',
    'conversions/int/uint_max_exact',
    'conversions/int/timestamp',
    'conversions/identity/timestamp',
    'parse/nest/funcall',
    'timestamps/timestamp_conversions/toInt_timestamp',
    'timestamps/timestamp_conversions/toString_timestamp',
    'timestamps/timestamp_conversions/toString_timestamp_nanos',
  ],
  'engine: a time zone given as an offset (getHours("02:00"))': [
    'timestamps/timestamp_selectors_tz/getHours',
  ],
  'engine: syntax it lacks (a float starting with ".", backquoted field names)': [
    'comparisons/gt_literal/not_gt_double',
    'fields/quoted_map_fields/field_access_slash',
    'fields/quoted_map_fields/field_access_dash',
    'fields/quoted_map_fields/field_access_dot',
    'fields/quoted_map_fields/has_field_slash',
    'fields/quoted_map_fields/has_field_dash',
    'fields/quoted_map_fields/has_field_dot',
  ],
  'engine: its checker refuses what the spec allows, or allows what it refuses': [
    'fields/map_has/has_empty',
    'logic/conditional/mixed_type',
    'macros/all/list_empty',
    'fields/qualified_identifier_resolution/map_key_null',
    'fields/qualified_identifier_resolution/map_value_repeat_key',
  ],
  'engine: a macro over a map literal with int keys sees them as strings': ['macros/exists_one/map_one'],
};
const KNOWN_NAMES = new Map(Object.entries(KNOWN).flatMap(([why, names]) => names.map((n) => [n, why])));

const SCALARS = new Set(['int', 'uint', 'double', 'string', 'bool']);

function holds(c: SpecCase): boolean {
  const source = c.error
    ? `(${c.expr}) == (${c.expr})`
    : `(${c.expr}) == ${c.value}${SCALARS.has(c.type!) ? ` && type(${c.expr}) == ${c.type}` : ''}`;
  let compiled: ReturnType<typeof compileCondition>;
  try {
    compiled = compileCondition(source, 'conformance');
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return c.error === true;
  }
  const result = evaluate(compiled, BASE_VIEW);
  return c.error ? typeof result === 'object' : result === true;
}

describe('cel-spec conformance (the subset conditions can use)', () => {
  const sections = new Map<string, SpecCase[]>();
  for (const c of CASES) {
    const section = c.name.split('/').slice(0, 2).join('/');
    sections.set(section, [...(sections.get(section) ?? []), c]);
  }
  for (const [section, cases] of sections) {
    it(`${section} (${cases.length})`, () => {
      const unexpected = cases
        .map((c) => ({ c, ok: holds(c), known: KNOWN_NAMES.get(c.name) }))
        .filter(({ ok, known }) => ok === (known !== undefined))
        .map(({ c, ok }) => `${ok ? 'now holds, remove from KNOWN' : 'fails'}: ${c.name}: ${c.expr}`);
      expect(unexpected).toEqual([]);
    });
  }

  it('every known difference names a case of the subset', () => {
    const names = new Set(CASES.map((c) => c.name));
    expect([...KNOWN_NAMES.keys()].filter((n) => !names.has(n))).toEqual([]);
  });
});
