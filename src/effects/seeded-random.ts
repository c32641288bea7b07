/** A source of uniform random numbers in `[0, 1)`, like `Math.random`. */
export type RandomSource = () => number;

/**
 * A seeded pseudo-random source (mulberry32, Tommy Ettinger's 32-bit generator): the same
 * seed gives the same sequence, so jittered retry delays are reproducible in tests.
 *
 * @remarks Not cryptographic. Each call returns a number in `[0, 1)`; the period is 2^32.
 * @param seed - Any number; it is truncated to an unsigned 32-bit integer.
 * @example
 * ```ts
 * const random = seededRandom(42);
 * random(); // 0.6011037519201636, and the same on every run
 * ```
 */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
