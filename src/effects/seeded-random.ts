import { seededUniform } from '../internal/seeded-random';

/** A source of uniform random numbers in `[0, 1)`, like `Math.random`. */
export type RandomSource = () => number;

/**
 * A seeded pseudo-random source: the same seed gives the same sequence, so jittered retry
 * delays are reproducible in tests. The n-th number is a hash of `(seed, n)` — the same
 * counter-based generator the sampling windows use, so the library has one source of
 * seeded randomness.
 *
 * @remarks Not cryptographic. Each call returns a number in `[0, 1)`.
 * @param seed - Any number; it is truncated to an unsigned 32-bit integer.
 * @example
 * ```ts
 * const random = seededRandom(42);
 * random() === seededRandom(42)(); // true: the same first number on every run
 * ```
 */
export function seededRandom(seed: number): RandomSource {
  let counter = 0;
  return () => seededUniform(seed >>> 0, counter++);
}
