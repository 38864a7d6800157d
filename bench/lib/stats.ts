/** Small statistics helpers for the report. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function median(values: number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/**
 * Median CPU µs (user + system, process.cpuUsage) per call of `once` over `batches` batches of `n`
 * calls, after a warm-up: the policy-step benches' one way of timing a synchronous step.
 */
export function cpuMicrosPerCall(once: () => unknown, n: number, batches = 7): number {
  for (let i = 0; i < Math.min(n, 2000); i++) once();
  const per: number[] = [];
  for (let r = 0; r < batches; r++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) once();
    const used = process.cpuUsage(t0);
    per.push((used.user + used.system) / n);
  }
  return median(per);
}

export function sum(values: number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

export function fmtInt(n: number | undefined | null): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '—';
  return Math.round(n).toLocaleString('en-US');
}

export function fmtNum(n: number | undefined | null, digits = 1): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '—';
  return n.toFixed(digits);
}

export function fmtRatio(n: number | undefined | null): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '—';
  return `${n.toFixed(2)}×`;
}

export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (Math.abs(n) >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (Math.abs(n) >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${Math.round(n)} B`;
}
