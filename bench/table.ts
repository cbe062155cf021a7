/**
 * The benchmark's output: rows of `section | measure | value | baseline | ratio | target`, number
 * formatting, percentiles, and targets that print whether they are met. Rows are plain data, so
 * every section module only returns rows and run.ts prints them all as one table.
 */

export interface Row {
  section: string;
  measure: string;
  value: string;
  baseline?: string;
  ratio?: string;
  target?: string;
}

/** A section of the benchmark: it builds what it needs under `tmp` and returns its rows. */
export interface Section {
  name: string;
  run(context: BenchContext): Promise<Row[]>;
}

export interface BenchContext {
  quick: boolean;
  /** A temporary directory the section may fill; run.ts removes it afterwards. */
  tmp: string;
  /** Progress lines (stderr), so stdout holds only the table. */
  log(line: string): void;
}

const COLUMNS = ['section', 'measure', 'value', 'baseline', 'ratio', 'target'] as const;

export function formatTable(rows: readonly Row[]): string {
  const cells = rows.map((row) => COLUMNS.map((column) => row[column] ?? ''));
  const header: string[] = [...COLUMNS];
  const widths = COLUMNS.map((_, i) => Math.max(header[i]!.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join(' | ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(header), rule, ...cells.map(line)].join('\n');
}

/** 1234.5 → "1,234.5" with `digits` decimals. */
export function num(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function rate(perSecond: number): string {
  return `${num(perSecond, perSecond < 100 ? 1 : 0)}/s`;
}

export function ratio(value: number): string {
  return value >= 0.1 ? `${num(value, 2)}×` : `${value.toPrecision(2)}×`;
}

export function percent(value: number): string {
  return `${num(value * 100, 0)}%`;
}

export function ms(milliseconds: number): string {
  if (milliseconds >= 10_000) return `${num(milliseconds / 1000, 2)} s`;
  return `${num(milliseconds, milliseconds < 100 ? 1 : 0)} ms`;
}

export function us(microseconds: number): string {
  return `${num(microseconds, microseconds < 10 ? 1 : 0)} µs`;
}

export function mb(bytes: number): string {
  return `${num(bytes / 1024 / 1024, 0)} MB`;
}

/** "≥ 50/s: met" or "≥ 50/s: NOT met". */
export function target(description: string, met: boolean): string {
  return `${description}: ${met ? 'met' : 'NOT met'}`;
}

/** The q-quantile (0..1) of samples, nearest-rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** "p50 / p99" of microsecond samples. */
export function p50p99(samples: readonly number[]): string {
  return `${us(quantile(samples, 0.5))} / ${us(quantile(samples, 0.99))}`;
}

/** Thousands of documents as a short label: 1000 → "1k", 20000 → "20k", 2500 → "2.5k". */
export function count(n: number): string {
  return n >= 1000 ? `${num(n / 1000, n % 1000 === 0 ? 0 : 1)}k` : String(n);
}
