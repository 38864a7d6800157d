/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: every line must be
 * a HELP, a TYPE or a sample of a family declared before it, or it throws naming the line.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** Samples of `name` whose labels include all of `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** The one sample of `name` with exactly these labels (besides none), or throws. */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"(?:,|$)/;
const SUFFIXES = ['_bucket', '_sum', '_count'];

export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (types.has(name)) throw new Error(`family ${name} declared twice`);
      if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type))
        throw new Error(`bad type: ${line}`);
      types.set(name, type);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const [, name, rawLabels = '', rawValue] = m;
    const family = types.has(name)
      ? name
      : SUFFIXES.map((s) => (name.endsWith(s) ? name.slice(0, -s.length) : '')).find(
          (f) => f && types.get(f) === 'histogram',
        );
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    const labels: Record<string, string> = {};
    let rest = rawLabels;
    while (rest.length > 0) {
      const l = LABEL.exec(rest);
      if (!l) throw new Error(`bad labels in ${JSON.stringify(line)}`);
      labels[l[1]] = l[2];
      rest = rest.slice(l[0].length);
    }
    const value = rawValue === '+Inf' ? Infinity : rawValue === '-Inf' ? -Infinity : Number(rawValue);
    if (Number.isNaN(value) && rawValue !== 'NaN') throw new Error(`bad value in ${JSON.stringify(line)}`);
    samples.push({ name, labels, value });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    types,
    samples,
    find,
    value(name, labels = {}) {
      const exact = find(name, labels).filter(
        (s) => Object.keys(s.labels).length === Object.keys(labels).length,
      );
      if (exact.length !== 1) throw new Error(`${exact.length} samples of ${name} ${JSON.stringify(labels)}`);
      return exact[0].value;
    },
  };
}

/** A histogram series as cumulative buckets (le → count), with its sum and count. */
export function histogram(exp: Exposition, name: string, labels: Record<string, string>) {
  const buckets = new Map<string, number>();
  for (const s of exp.find(`${name}_bucket`, labels)) buckets.set(s.labels.le, s.value);
  return { buckets, sum: exp.value(`${name}_sum`, labels), count: exp.value(`${name}_count`, labels) };
}
