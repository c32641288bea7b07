import { RxSliceError } from '../internal/errors';
import { seededRandom, type RandomSource } from './seeded-random';
import { clip } from '../internal/quote';

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
  /**
   * The policy as plain JSON data, which {@link RetryPolicy.from} turns back into an equal policy.
   * Set by {@link RetryPolicy.exponential}, {@link RetryPolicy.fixed} and {@link RetryPolicy.none};
   * absent for an exponential policy given a `random` function (and no `seed`) and for a policy
   * written by hand, which cannot travel as data (an effect instance's own `retry` needs it).
   */
  readonly spec?: RetrySpec;
}

/**
 * A retry policy as plain JSON data: what an effect instance carries (`Fx(payload, { retry })`),
 * so that effects stay serializable. {@link RetryPolicy.from} builds the policy it describes;
 * every policy made by `RetryPolicy.exponential`, `.fixed` or `.none` has one as `spec`.
 * Units: milliseconds. The fields mean what the options of the matching constructor mean.
 */
export type RetrySpec =
  | {
      readonly kind: 'exponential';
      readonly maxAttempts: number;
      readonly initialDelayMs: number;
      readonly factor?: number;
      readonly maxDelayMs?: number;
      readonly jitter?: Jitter;
      readonly seed?: number;
    }
  | { readonly kind: 'fixed'; readonly delayMs: number; readonly count: number }
  | { readonly kind: 'none' };

/**
 * Options of {@link RetryPolicy.exponential}. Every field has a default
 * ({@link EXPONENTIAL_RETRY_DEFAULTS}): `RetryPolicy.exponential({ maxAttempts: 3 })` waits 1 s,
 * then 2 s.
 */
export interface ExponentialRetryOptions {
  /** Total attempts, the first one included. Integer ≥ 1. Default 3. */
  readonly maxAttempts?: number;
  /** Delay before the first retry, in ms. ≥ 0. Default 1,000. */
  readonly initialDelayMs?: number;
  /** Growth per retry. ≥ 1. Default 2. */
  readonly factor?: number;
  /**
   * Cap on the base delay, in ms (applied before jitter). Default 100 × `initialDelayMs`
   * (Temporal's cap); `Infinity` for no cap.
   */
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

/**
 * The defaults of {@link RetryPolicy.exponential}, after the durable-execution engines users
 * compare with: Temporal (1 s, ×2, capped at 100× the first delay), DBOS (1 s, ×2, 3 attempts)
 * and Restate (50 ms, ×2, capped at 10 s). The first delay of one second and the factor of two
 * are what Temporal and DBOS both use; the cap is Temporal's, so a long run of retries settles at
 * 100 s instead of growing without bound; three attempts is DBOS's default (Temporal retries
 * without end by default, which a store's effect should not do silently). Jitter stays `'none'`
 * so that a run without a seed is reproducible; pass `jitter: 'full'` (and a `seed` for
 * reproducible delays) when many clients retry the same service.
 */
export const EXPONENTIAL_RETRY_DEFAULTS = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 1_000,
  factor: 2,
  maxDelayFactor: 100,
  jitter: 'none' as Jitter,
});

function exponential(options: ExponentialRetryOptions = {}): RetryPolicy {
  const d = EXPONENTIAL_RETRY_DEFAULTS;
  const { maxAttempts = d.maxAttempts, initialDelayMs = d.initialDelayMs, factor = d.factor, jitter = d.jitter } = options;
  const maxDelayMs = options.maxDelayMs ?? initialDelayMs * d.maxDelayFactor;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new InvalidRetryPolicyError(`maxAttempts must be an integer ≥ 1 (got ${clip(maxAttempts)})`);
  if (!(initialDelayMs >= 0)) throw new InvalidRetryPolicyError(`initialDelayMs must be ≥ 0 (got ${clip(initialDelayMs)})`);
  if (!(factor >= 1)) throw new InvalidRetryPolicyError(`factor must be ≥ 1 (got ${clip(factor)})`);
  if (!(maxDelayMs >= 0)) throw new InvalidRetryPolicyError(`maxDelayMs must be ≥ 0 (got ${clip(maxDelayMs)})`);
  if (!JITTERS.includes(jitter)) throw new InvalidRetryPolicyError(`jitter must be one of ${JITTERS.join(', ')} (got ${clip(JSON.stringify(jitter))})`);
  if (options.seed !== undefined && !Number.isFinite(options.seed)) throw new InvalidRetryPolicyError(`seed must be a finite number (got ${clip(options.seed)})`);
  const baseDelayMs = (retry: number): number => Math.round(Math.min(maxDelayMs, initialDelayMs * factor ** (retry - 1)));
  // A `random` function cannot travel as data; a seed replaces it (it is then unused).
  const spec: RetrySpec | undefined =
    options.random !== undefined && options.seed === undefined
      ? undefined
      : Object.freeze({
          kind: 'exponential',
          maxAttempts,
          initialDelayMs,
          factor,
          ...(Number.isFinite(maxDelayMs) ? { maxDelayMs } : {}),
          jitter,
          ...(options.seed === undefined ? {} : { seed: options.seed }),
        });
  return {
    maxAttempts,
    baseDelayMs,
    delayMs: (retry, random) => applyJitter(baseDelayMs(retry), jitter, random),
    createRandom: () => (options.seed !== undefined ? seededRandom(options.seed) : (options.random ?? Math.random)),
    ...(spec === undefined ? {} : { spec }),
  };
}

const JITTERS: readonly Jitter[] = ['none', 'full', 'equal'];

function fixed(delayMs: number, count: number): RetryPolicy {
  if (!(delayMs >= 0)) throw new InvalidRetryPolicyError(`delayMs must be ≥ 0 (got ${clip(delayMs)})`);
  if (!Number.isInteger(count) || count < 0) throw new InvalidRetryPolicyError(`count must be an integer ≥ 0 (got ${clip(count)})`);
  const delay = Math.round(delayMs);
  return {
    maxAttempts: count + 1,
    baseDelayMs: () => delay,
    delayMs: () => delay,
    createRandom: () => Math.random,
    spec: Object.freeze({ kind: 'fixed', delayMs, count }),
  };
}

const NONE: RetryPolicy = Object.freeze({
  maxAttempts: 1,
  baseDelayMs: () => 0,
  delayMs: () => 0,
  createRandom: () => Math.random,
  spec: Object.freeze({ kind: 'none' }),
});

/** The policy `spec` describes (see {@link RetrySpec}); checks it as the constructors check their options. */
function from(spec: RetrySpec): RetryPolicy {
  const kind: unknown = spec !== null && typeof spec === 'object' ? (spec as { kind?: unknown }).kind : undefined;
  switch (kind) {
    case 'none':
      return NONE;
    case 'fixed': {
      const { delayMs, count } = spec as Extract<RetrySpec, { kind: 'fixed' }>;
      if (typeof delayMs !== 'number' || typeof count !== 'number') throw new InvalidRetryPolicyError('a "fixed" spec needs numbers delayMs and count');
      return fixed(delayMs, count);
    }
    case 'exponential': {
      const { maxAttempts, initialDelayMs, factor, maxDelayMs, jitter, seed } = spec as Extract<RetrySpec, { kind: 'exponential' }>;
      if (typeof maxAttempts !== 'number' || typeof initialDelayMs !== 'number') {
        throw new InvalidRetryPolicyError('an "exponential" spec needs numbers maxAttempts and initialDelayMs');
      }
      for (const [name, value] of [['factor', factor], ['maxDelayMs', maxDelayMs], ['seed', seed]] as const) {
        if (value !== undefined && typeof value !== 'number') throw new InvalidRetryPolicyError(`${name} must be a number (got ${clip(JSON.stringify(value))})`);
      }
      return exponential({
        maxAttempts,
        initialDelayMs,
        ...(factor === undefined ? {} : { factor }),
        // A spec without a cap (written before the cap had a default, or with `Infinity`) has none.
        maxDelayMs: maxDelayMs ?? Number.POSITIVE_INFINITY,
        ...(jitter === undefined ? {} : { jitter }),
        ...(seed === undefined ? {} : { seed }),
      });
    }
    default:
      throw new InvalidRetryPolicyError(`a retry spec needs kind "exponential", "fixed" or "none" (got ${clip(JSON.stringify(kind) ?? 'no spec')})`);
  }
}

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
   * Every option has a default ({@link EXPONENTIAL_RETRY_DEFAULTS} says which and why): 3
   * attempts, 1,000 ms, ×2, capped at 100 × the first delay, no jitter.
   * @throws {@link InvalidRetryPolicyError} for `maxAttempts < 1`, negative delays or `factor < 1`.
   * @example
   * ```ts
   * const p = RetryPolicy.exponential({ maxAttempts: 3 });
   * [p.maxAttempts, p.baseDelayMs(1), p.baseDelayMs(2)]; // [3, 1000, 2000]
   * RetryPolicy.exponential({ maxAttempts: 12 }).baseDelayMs(11); // 100000: the cap, 100 × 1,000 ms
   * ```
   */
  exponential,
  /**
   * `count` retries (so `count + 1` attempts), each `delayMs` after the previous attempt failed.
   * @throws {@link InvalidRetryPolicyError} for a negative delay or count.
   */
  fixed,
  /** One attempt, no retry (the default of every effect). */
  none: NONE,
  /**
   * The policy a {@link RetrySpec} (plain data, e.g. read from JSON or carried by an effect)
   * describes: `RetryPolicy.from(p.spec)` behaves as `p` (a seeded policy draws the same delays).
   * @throws {@link InvalidRetryPolicyError} for an unknown `kind`, a missing or non-numeric field,
   * or values the matching constructor refuses.
   * @example
   * ```ts
   * RetryPolicy.from({ kind: 'fixed', delayMs: 10, count: 2 }).maxAttempts; // 3
   * RetryPolicy.exponential({ maxAttempts: 3, initialDelayMs: 100 }).spec;
   * // { kind: 'exponential', maxAttempts: 3, initialDelayMs: 100, factor: 2, maxDelayMs: 10000, jitter: 'none' }
   * ```
   */
  from,
} as const;
