/**
 * Counter-based pseudo-randomness: a uniform number that is a pure function of
 * `(seed, counter)`. There is no generator state to carry, advance or roll back, so a
 * sampling window evicts the same items on a replay, after a rollback, or in another
 * process, as long as the seed and the slice's `appended` counter agree.
 *
 * The mixer is the 32-bit finalizer of MurmurHash3 (`fmix32`) applied in two rounds to
 * (seed, counter low word, counter high word); two outputs make a 53-bit fraction.
 */

const TWO_32 = 2 ** 32;
const TWO_53 = 2 ** 53;

function fmix32(input: number): number {
  let x = input >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/**
 * @internal A number in `[0, 1)`, uniform over 2^53 values, determined by `seed` and `counter`.
 * @example
 * ```ts
 * seededUniform(42, 7) === seededUniform(42, 7); // true, on every platform
 * ```
 */
export function seededUniform(seed: number, counter: number): number {
  const lo = counter >>> 0;
  const hi = Math.floor(counter / TWO_32) >>> 0;
  const s = fmix32(seed ^ 0x9e3779b9);
  const a = fmix32(s ^ fmix32(lo + 0x7f4a7c15) ^ fmix32(hi ^ 0x27d4eb2f));
  const b = fmix32(a ^ s ^ 0x165667b1);
  return (a * 2 ** 21 + (b >>> 11)) / TWO_53;
}

/** @internal An integer in `[0, bound)` determined by `seed` and `counter`. */
export function seededIndex(seed: number, counter: number, bound: number): number {
  return Math.floor(seededUniform(seed, counter) * bound);
}
