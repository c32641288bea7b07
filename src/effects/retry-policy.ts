import { RxSliceError } from '../internal/errors';
import { seededRandom, type RandomSource } from './seeded-random';

/**
 * How a retry delay is randomized, after Marc Brooker, "Exponential Backoff And Jitter"
 * (AWS Architecture Blog, 2015), for a capped base delay `b`:
 * `'none'` waits `b`; `'full'` waits a uniform integer in `[0, b]`; `'equal'` waits a uniform
 * integer in `[ceil(b / 2), b]`.
 */
export type Jitter = 'none' | 'full' | 'equal';

/**
 * When and how often a failed effect is tried again. A value: build it with
 * {@link RetryPolicy.exponential}, {@link RetryPolicy.fixed} or {@link RetryPolicy.none}.
 */
export interface RetryPolicy {
  /** Total attempts, the first one included (1 = no retry). */
  readonly maxAttempts: number;
  /** The delay before retry `retry` (1 for the first retry) before jitter, in whole milliseconds. */
  baseDelayMs(retry: number): number;
  /** The delay before retry `retry` with the policy's jitter applied, drawing from `random`. */
  delayMs(retry: number, random: RandomSource): number;
  /** A new random source for one session: seeded when the policy has a seed, else `random` or `Math.random`. */
  createRandom(): RandomSource;
}

/** Options of {@link RetryPolicy.exponential}. */
export interface ExponentialRetryOptions {
  /** Total attempts, the first one included. Integer ≥ 1. */
  readonly maxAttempts: number;
  /** Delay before the first retry, in ms. ≥ 0. */
  readonly initialDelayMs: number;
  /** Growth per retry. ≥ 1. Default 2. */
  readonly factor?: number;
  /** Cap on the base delay, in ms (applied before jitter). Default: no cap. */
  readonly maxDelayMs?: number;
  /** Default `'none'`. */
  readonly jitter?: Jitter;
  /** Seed of the random source used for jitter (reproducible delays); each session gets its own sequence. */
  readonly seed?: number;
  /** A random source for jitter, used when no `seed` is given. Default `Math.random`. */
  readonly random?: RandomSource;
}

/** Thrown when a retry policy is built with parameters that make no sense. */
export class InvalidRetryPolicyError extends RxSliceError {
  override readonly name = 'InvalidRetryPolicyError';
  constructor(detail: string) {
    super('INVALID_RETRY_POLICY', `Invalid retry policy: ${detail}.`);
  }
}

function applyJitter(base: number, jitter: Jitter, random: RandomSource): number {
  switch (jitter) {
    case 'none':
      return base;
    case 'full':
      return Math.floor(random() * (base + 1));
    case 'equal': {
      const low = Math.ceil(base / 2);
      return low + Math.floor(random() * (base - low + 1));
    }
  }
}

function exponential(options: ExponentialRetryOptions): RetryPolicy {
  const { maxAttempts, initialDelayMs, factor = 2, maxDelayMs = Number.POSITIVE_INFINITY, jitter = 'none' } = options;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new InvalidRetryPolicyError(`maxAttempts must be an integer ≥ 1 (got ${maxAttempts})`);
  if (!(initialDelayMs >= 0)) throw new InvalidRetryPolicyError(`initialDelayMs must be ≥ 0 (got ${initialDelayMs})`);
  if (!(factor >= 1)) throw new InvalidRetryPolicyError(`factor must be ≥ 1 (got ${factor})`);
  if (!(maxDelayMs >= 0)) throw new InvalidRetryPolicyError(`maxDelayMs must be ≥ 0 (got ${maxDelayMs})`);
  const baseDelayMs = (retry: number): number => Math.round(Math.min(maxDelayMs, initialDelayMs * factor ** (retry - 1)));
  return {
    maxAttempts,
    baseDelayMs,
    delayMs: (retry, random) => applyJitter(baseDelayMs(retry), jitter, random),
    createRandom: () => (options.seed !== undefined ? seededRandom(options.seed) : (options.random ?? Math.random)),
  };
}

function fixed(delayMs: number, count: number): RetryPolicy {
  if (!(delayMs >= 0)) throw new InvalidRetryPolicyError(`delayMs must be ≥ 0 (got ${delayMs})`);
  if (!Number.isInteger(count) || count < 0) throw new InvalidRetryPolicyError(`count must be an integer ≥ 0 (got ${count})`);
  const delay = Math.round(delayMs);
  return { maxAttempts: count + 1, baseDelayMs: () => delay, delayMs: () => delay, createRandom: () => Math.random };
}

const NONE: RetryPolicy = Object.freeze({
  maxAttempts: 1,
  baseDelayMs: () => 0,
  delayMs: () => 0,
  createRandom: () => Math.random,
});

/**
 * Retry policies for effects (`defineEffect(type, schema, { retry })`). The runner waits
 * `delayMs(n)` on the session's scheduler before retry `n`, so delays run in virtual time
 * under `TestScheduler`.
 *
 * @example
 * ```ts
 * const p = RetryPolicy.exponential({ maxAttempts: 5, initialDelayMs: 100, factor: 2, maxDelayMs: 500 });
 * [1, 2, 3, 4].map((n) => p.baseDelayMs(n)); // [100, 200, 400, 500]
 * RetryPolicy.fixed(10, 2).maxAttempts;       // 3: the first attempt and two retries, 10 ms apart
 * ```
 */
export const RetryPolicy = {
  /**
   * Exponential backoff: the base delay before retry `n` is
   * `min(maxDelayMs, round(initialDelayMs * factor^(n-1)))` ms, then `jitter` is applied.
   * @throws {@link InvalidRetryPolicyError} for `maxAttempts < 1`, negative delays or `factor < 1`.
   */
  exponential,
  /**
   * `count` retries (so `count + 1` attempts), each `delayMs` after the previous attempt failed.
   * @throws {@link InvalidRetryPolicyError} for a negative delay or count.
   */
  fixed,
  /** One attempt, no retry (the default of every effect). */
  none: NONE,
} as const;
