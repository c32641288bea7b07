/**
 * Timing and checking helpers shared by every workload. A workload builds a fresh store,
 * runs its loop, checks the result (so a fast wrong answer fails) and returns the time.
 * {@link measure} warms it up on smaller runs first, then times one full run.
 */

/** One measurement of one contender on one workload, as a worker reports it. */
export interface Measurement {
  /** The headline number, in the workload's unit (ns per operation, or ms). */
  readonly value: number;
  /** Further numbers (calls per update, first/last 10 % times, ...), keyed by name. */
  readonly extra?: Readonly<Record<string, number>>;
}

/** A workload implementation for one contender: builds, runs, checks, and measures. */
export type Impl = () => Measurement | Promise<Measurement>;

/** Marks a contender that cannot run yet, with the reason printed instead of a number. */
export interface Unavailable {
  readonly unavailable: string;
}

/** Thrown when a workload's result is wrong: the worker prints FAILED and exits non-zero. */
export class BenchCheckError extends Error {
  override readonly name = 'BenchCheckError';
}

/** Throws {@link BenchCheckError} with `message` unless `condition` holds. */
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new BenchCheckError(message);
}

/** Throws unless `actual === expected`, naming both. */
export function checkEqual<T>(actual: T, expected: T, what: string): void {
  check(Object.is(actual, expected), `${what}: expected ${String(expected)}, got ${String(actual)}`);
}

/** Monotonic time in milliseconds (sub-microsecond resolution). */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const collectGarbage = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
};

/** Options of {@link measure}. */
export interface MeasureOptions {
  /** Operations in the timed run (the number). */
  readonly ops: number;
  /** The timed run's operation count is kept a multiple of this (e.g. the slice count). Default 1. */
  readonly unit?: number;
  /**
   * Time budget of all timed runs together, in ms. When the warm-up shows that `ops` operations
   * would take longer than the budget's share of one run, each timed run does fewer (never fewer
   * than one warm-up run's worth) and the count is reported as `extra.ops`. Workloads whose
   * per-operation cost grows with the operation count (the log) pass `Infinity`.
   * Default {@link DEFAULT_BUDGET_MS}.
   */
  readonly budgetMs?: number;
  /** Timed runs (each on a fresh store); the median is reported. Default 3. */
  readonly timedRuns?: number;
  /** Operations in each warm-up run. Default `ops / 20`. */
  readonly warmupOps?: number;
}

/** Default time budget of the timed runs of one measurement, in ms (override with `BENCH_BUDGET_MS`). */
export const DEFAULT_BUDGET_MS = Number(process.env['BENCH_BUDGET_MS'] ?? 600);
/**
 * Warm-up runs until it has done at least 3 runs and spent {@link WARMUP_MIN_MS}, so that the
 * JIT has optimized the hot code before timing; it stops after {@link WARMUP_MAX_MS} whatever
 * the count (a slow contender gets fewer warm-up runs).
 */
const WARMUP_MIN_MS = 400;
const WARMUP_MAX_MS = 1500;

/** Whether warm-up goes on after `runs` runs that took `elapsedMs` in all. */
const warmingUp = (runs: number, elapsedMs: number, scale = 1): boolean =>
  elapsedMs < WARMUP_MAX_MS * scale && (runs < 3 || elapsedMs < WARMUP_MIN_MS * scale);

/** What one run of a workload returns: its elapsed time and optional extra numbers. */
export interface RunResult {
  readonly ms: number;
  readonly extra?: Readonly<Record<string, number>>;
  /** The store the run used; {@link measure} keeps the last warm-up's alive through the timed runs. */
  readonly store?: unknown;
}

/**
 * The store of the last warm-up run, kept alive until the timed runs are done. Each timed run
 * builds a fresh store after a full `gc()`; had the warm-up stores died in that collection, V8
 * would drop the optimized code built for the library's classes whose every instance died
 * (a "weak objects" deoptimization: the code embeds their hidden classes), and the timed run
 * would re-measure the JIT instead of the steady state warm-up reached. A live application
 * keeps its store; so does the measurement, for every contender alike.
 */
let retained: unknown;

const roundDown = (n: number, unit: number): number => Math.max(unit, Math.floor(n / unit) * unit);

/**
 * Warms `run` up on smaller runs (each checked, as `run` checks its own result; see
 * {@link warmingUp} for how many), then times `timedRuns` runs (garbage collected before
 * each) and reports the median ns per operation, with the extra numbers of that median run.
 * `extra.ops` is the number of operations per timed run.
 */
export async function measure(
  options: MeasureOptions,
  run: (ops: number) => RunResult | Promise<RunResult>,
): Promise<Measurement> {
  const unit = options.unit ?? 1;
  const warmupOps = roundDown(options.warmupOps ?? options.ops / 20, unit);
  const warmupStart = nowMs();
  let perOpMs = 0;
  for (let i = 0; i === 0 || warmingUp(i, nowMs() - warmupStart); i++) {
    const warm = await run(warmupOps);
    perOpMs = warm.ms / warmupOps;
    retained = warm.store;
  }
  const runs = options.timedRuns ?? 3;
  const budgetMs = (options.budgetMs ?? DEFAULT_BUDGET_MS) / runs;
  const ops = perOpMs * options.ops <= budgetMs ? options.ops : Math.max(warmupOps, roundDown(budgetMs / perOpMs, unit));
  const results: RunResult[] = [];
  for (let i = 0; i < runs; i++) {
    collectGarbage();
    results.push(await run(ops));
  }
  retained = undefined;
  results.sort((a, b) => a.ms - b.ms);
  const mid = results[(results.length - 1) >> 1] as RunResult;
  return { value: (mid.ms * 1e6) / ops, extra: { ...mid.extra, ops } };
}

/**
 * Measures an overhead: warms up `base` and `variant` alternately, then times three
 * alternating pairs (base, variant) of the same operation count in this one process, so
 * that both sides see the same machine load. Reports the variant's median ns per operation
 * as the value, `extra.baseNs` (the base's median) and `extra.overhead`, the median of the
 * per-pair ratios variant / base.
 */
export async function measurePaired(
  options: MeasureOptions,
  base: (ops: number) => RunResult | Promise<RunResult>,
  variant: (ops: number) => RunResult | Promise<RunResult>,
): Promise<Measurement> {
  const unit = options.unit ?? 1;
  const warmupOps = roundDown(options.warmupOps ?? options.ops / 20, unit);
  const warmupStart = nowMs();
  let perOpMs = 0;
  let retainedBase: unknown;
  for (let i = 0; i === 0 || warmingUp(i, nowMs() - warmupStart, 2); i++) {
    const a = await base(warmupOps);
    const b = await variant(warmupOps);
    perOpMs = Math.max(a.ms, b.ms) / warmupOps;
    retainedBase = a.store;
    retained = b.store;
  }
  // Six timed runs share twice the usual budget.
  const budgetMs = ((options.budgetMs ?? DEFAULT_BUDGET_MS) * 2) / 6;
  const ops = perOpMs * options.ops <= budgetMs ? options.ops : Math.max(warmupOps, roundDown(budgetMs / perOpMs, unit));
  const baseNs: number[] = [];
  const variantNs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    const a = ((await base(ops)).ms * 1e6) / ops;
    collectGarbage();
    const b = ((await variant(ops)).ms * 1e6) / ops;
    baseNs.push(a);
    variantNs.push(b);
    ratios.push(b / a);
  }
  retained = retainedBase = undefined;
  const mid = (v: number[]): number => [...v].sort((x, y) => x - y)[1] as number;
  return { value: mid(variantNs), extra: { baseNs: mid(baseNs), overhead: mid(ratios), ops } };
}

/** Times `fn` (synchronous) in milliseconds. */
export function time(fn: () => void): number {
  const t0 = nowMs();
  fn();
  return nowMs() - t0;
}
