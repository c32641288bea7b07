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

/** Thrown when a run passes its deadline (the log workloads' `LOG_DEADLINE_MS`, workload 9's); the worker reports it as a timeout with the progress. */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(readonly done: number, readonly total: number, readonly elapsedMs: number) {
    super(`stopped after ${Math.round(elapsedMs)} ms at ${done} of ${total} operations`);
  }
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
const wallMs = (): number => Number(process.hrtime.bigint()) / 1e6;
/** CPU time of this process (all its threads, user + system) in milliseconds (microsecond resolution). */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e3;
};
/**
 * The clock every workload times with: wall time by default; `BENCH_CLOCK=cpu` times with the
 * process's CPU time instead (what a run cost while it was on a core, not how long it waited for
 * one on a loaded machine; it includes V8's background threads, and misses time spent waiting
 * for the disk).
 */
export const CLOCK: 'wall' | 'cpu' = process.env['BENCH_CLOCK'] === 'cpu' ? 'cpu' : 'wall';
/** The current time of {@link CLOCK} in milliseconds. */
export const nowMs: () => number = CLOCK === 'cpu' ? cpuMs : wallMs;

/**
 * Milliseconds the worker sleeps after the full `gc()` before a timed run. The collection leaves
 * its sweeping to V8's background threads; on a 2-core machine they compete with the timed run
 * for a core, and Redux's snapshot + restore (~0.5 ms per run) read 2-15× slow in a third of its
 * runs until the worker waited for them (measured with `BENCH_CLOCK=cpu BENCH_TRACE=1`).
 */
export const SETTLE_MS = 10;

/**
 * What a run calls (and awaits) between building its fresh store and starting its clock. In a
 * timed run it is {@link settle}: the store's objects, all young, are promoted by a full
 * collection, so the first scavenge of the timed loop does not copy the whole new store (a ~1 MB
 * store made rxslice's snapshot + restore read 1.9 or 5 µs per run depending on whether a
 * scavenge fell into it, CPU time). In cold and warm-up runs it does nothing.
 */
export type Ready = () => Promise<void>;
const noWait: Ready = () => Promise.resolve();

/** A full garbage collection, then {@link SETTLE_MS} of idle time for its background sweeping. */
const collectGarbage = async (): Promise<void> => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
};

/** Options of {@link measure}. */
export interface MeasureOptions {
  /** Operations in the timed run (the issue's number). */
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
  /**
   * Timed runs (each on a fresh store); the median is reported. Default {@link TIMED_RUNS} for the
   * per-call workloads (`first: true`, runs of milliseconds), 3 for the others (runs of tens of
   * milliseconds to seconds, where more runs would only lengthen `npm run bench`).
   */
  readonly timedRuns?: number;
  /** Operations in each warm-up run. Default `ops / 20`. */
  readonly warmupOps?: number;
  /**
   * Whether to time the first {@link FIRST_CALLS} operations on a fresh store in this fresh
   * process, before any warm-up (the cold start a user meets: interpreter, then the JIT's tiers),
   * reported as `extra.firstNs` (ns per operation) beside the steady-state headline. Default false;
   * the per-call workloads (1, 2, 3, 6, 7m) turn it on. It also turns on the fresh-session runs:
   * after each steady timed run, one more of the same operation count on a store built right
   * before its clock starts, with no `ready()` collection between (what a user meets with every
   * new session once the process is warm), reported as `extra.freshNs` (median ns per operation).
   */
  readonly first?: boolean;
  /**
   * {@link measurePaired} only: after each timed pair, one more pair on stores built right before
   * each clock starts, with no collection between (fresh sessions in a warm process, as
   * `first` does for {@link measure}), reported as `extra.freshNs` (the variant's median ns per
   * operation), `extra.freshBaseNs` and `extra.freshOverhead` (median of the per-pair ratios).
   */
  readonly freshPairs?: boolean;
}

/** `BENCH_TRACE=1`: every timed run's ns per operation goes to stderr (how noisy a cell is). */
const TRACE = process.env['BENCH_TRACE'] === '1';

/** Operations of the cold-start sample (`MeasureOptions.first`). */
export const FIRST_CALLS = 1_000;
/**
 * Timed runs of one measurement of a per-call workload by default. Each is short (the budget is shared), so a run the
 * scheduler preempted (other processes share the machine) is one outlier among many and the
 * median does not move; three runs of ~0.5 ms each made Redux's snapshot + restore read anywhere
 * from 66 to 1,300 ns/iteration on the same machine.
 */
export const TIMED_RUNS = 9;

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
 * Optionally times the cold start first (`options.first`: the first {@link FIRST_CALLS}
 * operations on a fresh store in this fresh process, `extra.firstNs`), then warms `run` up on
 * smaller runs (each checked, as `run` checks its own result; see {@link warmingUp} for how
 * many), then times `timedRuns` runs (each on a fresh store, garbage collected before each) and
 * reports the median ns per operation, with the extra numbers of that median run.
 * `extra.ops` is the number of operations per timed run, `extra.runs` the number of timed runs,
 * `extra.minNs` the fastest run's ns per operation.
 */
export async function measure(
  options: MeasureOptions,
  run: (ops: number, ready: Ready) => RunResult | Promise<RunResult>,
): Promise<Measurement> {
  const unit = options.unit ?? 1;
  let firstNs: number | undefined;
  if (options.first === true) {
    // Nothing of this workload has run in this process yet: these calls are the cold start.
    const firstOps = Math.ceil(FIRST_CALLS / unit) * unit;
    const cold = await run(firstOps, noWait);
    firstNs = (cold.ms * 1e6) / firstOps;
    retained = cold.store;
  }
  const warmupOps = roundDown(options.warmupOps ?? options.ops / 20, unit);
  const warmupStart = nowMs();
  let perOpMs = 0;
  for (let i = 0; i === 0 || warmingUp(i, nowMs() - warmupStart); i++) {
    const warm = await run(warmupOps, noWait);
    // The fastest warm-up run sizes the timed runs (a preempted one would shrink them for nothing).
    perOpMs = i === 0 ? warm.ms / warmupOps : Math.min(perOpMs, warm.ms / warmupOps);
    retained = warm.store;
  }
  const runs = options.timedRuns ?? (options.first === true ? TIMED_RUNS : 3);
  const budgetMs = (options.budgetMs ?? DEFAULT_BUDGET_MS) / runs;
  const ops = perOpMs * options.ops <= budgetMs ? options.ops : Math.max(warmupOps, roundDown(budgetMs / perOpMs, unit));
  const results: RunResult[] = [];
  // Fresh-session runs (per-call workloads): alternate with the steady runs, so both see the same load.
  const freshNs: number[] = [];
  for (let i = 0; i < runs; i++) {
    await collectGarbage();
    results.push(await run(ops, settle));
    if (options.first === true) {
      await collectGarbage();
      freshNs.push(((await run(ops, noWait)).ms * 1e6) / ops);
    }
  }
  retained = undefined;
  if (TRACE) process.stderr.write(`timed runs (ns/op, ${ops} ops each, in run order): ${results.map((r) => ((r.ms * 1e6) / ops).toFixed(1)).join(' ')}\n`);
  if (TRACE && freshNs.length > 0) process.stderr.write(`fresh-session runs (ns/op, in run order): ${freshNs.map((v) => v.toFixed(1)).join(' ')}\n`);
  results.sort((a, b) => a.ms - b.ms);
  const mid = results[(results.length - 1) >> 1] as RunResult;
  const minNs = ((results[0] as RunResult).ms * 1e6) / ops;
  return {
    value: (mid.ms * 1e6) / ops,
    extra: {
      ...mid.extra,
      ops,
      runs,
      minNs,
      ...(firstNs === undefined ? {} : { firstNs }),
      ...(freshNs.length === 0 ? {} : { freshNs: [...freshNs].sort((x, y) => x - y)[(freshNs.length - 1) >> 1] as number }),
    },
  };
}

/**
 * Measures an overhead: warms up `base` and `variant` alternately, then times `timedRuns`
 * (default 3) alternating pairs (base, variant) of the same operation count in this one process, so
 * that both sides see the same machine load. Reports the variant's median ns per operation
 * as the value, `extra.baseNs` (the base's median) and `extra.overhead`, the median of the
 * per-pair ratios variant / base.
 */
export async function measurePaired(
  options: MeasureOptions,
  base: (ops: number, ready: Ready) => RunResult | Promise<RunResult>,
  variant: (ops: number, ready: Ready) => RunResult | Promise<RunResult>,
): Promise<Measurement> {
  const unit = options.unit ?? 1;
  const warmupOps = roundDown(options.warmupOps ?? options.ops / 20, unit);
  const warmupStart = nowMs();
  let perOpMs = 0;
  let retainedBase: unknown;
  for (let i = 0; i === 0 || warmingUp(i, nowMs() - warmupStart, 2); i++) {
    const a = await base(warmupOps, noWait);
    const b = await variant(warmupOps, noWait);
    perOpMs = Math.max(a.ms, b.ms) / warmupOps;
    retainedBase = a.store;
    retained = b.store;
  }
  // The pairs' timed runs share twice the usual budget.
  const pairs = options.timedRuns ?? 3;
  const budgetMs = ((options.budgetMs ?? DEFAULT_BUDGET_MS) * 2) / (2 * pairs);
  const ops = perOpMs * options.ops <= budgetMs ? options.ops : Math.max(warmupOps, roundDown(budgetMs / perOpMs, unit));
  const baseNs: number[] = [];
  const variantNs: number[] = [];
  const ratios: number[] = [];
  const freshBaseNs: number[] = [];
  const freshNs: number[] = [];
  const freshRatios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    await collectGarbage();
    const a = ((await base(ops, settle)).ms * 1e6) / ops;
    await collectGarbage();
    const b = ((await variant(ops, settle)).ms * 1e6) / ops;
    baseNs.push(a);
    variantNs.push(b);
    ratios.push(b / a);
    if (options.freshPairs === true) {
      await collectGarbage();
      const fa = ((await base(ops, noWait)).ms * 1e6) / ops;
      await collectGarbage();
      const fb = ((await variant(ops, noWait)).ms * 1e6) / ops;
      freshBaseNs.push(fa);
      freshNs.push(fb);
      freshRatios.push(fb / fa);
    }
  }
  retained = retainedBase = undefined;
  const mid = (v: number[]): number => [...v].sort((x, y) => x - y)[(v.length - 1) >> 1] as number;
  if (TRACE) process.stderr.write(`paired overheads (in run order): ${ratios.map((r) => r.toFixed(3)).join(' ')}${freshRatios.length > 0 ? `; fresh pairs: ${freshRatios.map((r) => r.toFixed(3)).join(' ')}` : ''}\n`);
  const fresh = freshNs.length === 0 ? {} : { freshNs: mid(freshNs), freshBaseNs: mid(freshBaseNs), freshOverhead: mid(freshRatios) };
  return { value: mid(variantNs), extra: { baseNs: mid(baseNs), overhead: mid(ratios), ops, runs: pairs, ...fresh } };
}

/** {@link Ready} of a timed run: a full collection and its settle time. */
const settle: Ready = () => collectGarbage();

/** Times `fn` (synchronous) in milliseconds. */
export function time(fn: () => void): number {
  const t0 = nowMs();
  fn();
  return nowMs() - t0;
}
