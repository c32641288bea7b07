/** Small statistics over the rounds of one cell. */

/** The median of `values` (mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Formats a number with thousands separators and `digits` decimals (fewer for large values). */
export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return String(value);
  const d = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 100 ? Math.min(digits, 1) : digits;
  return value.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** Formats a ratio as `1.23×`. */
export const fmtRatio = (ratio: number): string => (Number.isFinite(ratio) ? `${ratio.toFixed(ratio >= 100 ? 0 : 2)}×` : '—');

/** The `q` quantile (0..1) of ascending `sorted` values (nearest rank). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
