import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXPONENTIAL_RETRY_DEFAULTS, InvalidRetryPolicyError, RetryPolicy, type Jitter } from '../../src/effects/retry-policy';
import { seededRandom } from '../../src/effects/seeded-random';

const constant = (value: number) => () => value;

describe('RetryPolicy.exponential', () => {
  it('works with the design document\'s call, RetryPolicy.exponential(max_attempts=3): 3 attempts, 1 s then 2 s', () => {
    const p = RetryPolicy.exponential({ maxAttempts: 3 });
    expect(p.maxAttempts).toBe(3);
    expect([1, 2].map((n) => p.baseDelayMs(n))).toEqual([1000, 2000]);
    expect(p.delayMs(2, () => 0.5)).toBe(2000);
    expect(p.spec).toEqual({ kind: 'exponential', maxAttempts: 3, initialDelayMs: 1000, factor: 2, maxDelayMs: 100_000, jitter: 'none' });
  });

  it('defaults every option: 3 attempts, 1,000 ms ×2, capped at 100 × the first delay', () => {
    expect(EXPONENTIAL_RETRY_DEFAULTS).toEqual({ maxAttempts: 3, initialDelayMs: 1000, factor: 2, maxDelayFactor: 100, jitter: 'none' });
    expect(RetryPolicy.exponential().maxAttempts).toBe(3);
    expect(RetryPolicy.exponential({ maxAttempts: 12 }).baseDelayMs(11)).toBe(100_000);
    expect(RetryPolicy.exponential({ maxAttempts: 12, initialDelayMs: 50 }).baseDelayMs(11)).toBe(5_000);
    expect(RetryPolicy.exponential({ maxAttempts: 12, maxDelayMs: Infinity }).baseDelayMs(11)).toBe(1000 * 2 ** 10);
  });

  it('grows the base delay by factor per retry: 100, 200, 400, 800', () => {
    const p = RetryPolicy.exponential({ maxAttempts: 5, initialDelayMs: 100, factor: 2 });
    expect(p.maxAttempts).toBe(5);
    expect([1, 2, 3, 4].map((n) => p.baseDelayMs(n))).toEqual([100, 200, 400, 800]);
    expect([1, 2, 3, 4].map((n) => p.delayMs(n, Math.random))).toEqual([100, 200, 400, 800]);
  });

  it('caps the base delay at maxDelayMs', () => {
    const p = RetryPolicy.exponential({ maxAttempts: 8, initialDelayMs: 50, factor: 3, maxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map((n) => p.baseDelayMs(n))).toEqual([50, 150, 450, 1000, 1000, 1000]);
  });

  it('defaults factor to 2 and rounds fractional delays to whole ms', () => {
    expect(RetryPolicy.exponential({ maxAttempts: 3, initialDelayMs: 10 }).baseDelayMs(3)).toBe(40);
    const p = RetryPolicy.exponential({ maxAttempts: 4, initialDelayMs: 10, factor: 1.5 });
    expect([1, 2, 3].map((n) => p.baseDelayMs(n))).toEqual([10, 15, 23]); // 22.5 rounds to 23
  });

  it('rejects parameters that make no sense, saying which', () => {
    expect(() => RetryPolicy.exponential({ maxAttempts: 0, initialDelayMs: 1 })).toThrow(InvalidRetryPolicyError);
    expect(() => RetryPolicy.exponential({ maxAttempts: 1.5, initialDelayMs: 1 })).toThrow(/maxAttempts/);
    expect(() => RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: -1 })).toThrow(/initialDelayMs/);
    expect(() => RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 1, factor: 0.5 })).toThrow(/factor/);
    expect(() => RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 1, maxDelayMs: -5 })).toThrow(/maxDelayMs/);
  });

  it('full jitter stays within [0, base] and equal jitter within [ceil(base/2), base], as integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, initialDelayMs, factor, maxDelayMs, r) => {
          const base = RetryPolicy.exponential({ maxAttempts: 11, initialDelayMs, factor, maxDelayMs }).baseDelayMs(retry);
          expect(base).toBeLessThanOrEqual(maxDelayMs);
          const full = RetryPolicy.exponential({ maxAttempts: 11, initialDelayMs, factor, maxDelayMs, jitter: 'full' }).delayMs(retry, constant(r));
          const equal = RetryPolicy.exponential({ maxAttempts: 11, initialDelayMs, factor, maxDelayMs, jitter: 'equal' }).delayMs(retry, constant(r));
          expect(Number.isInteger(full) && full >= 0 && full <= base).toBe(true);
          expect(Number.isInteger(equal) && equal >= Math.ceil(base / 2) && equal <= base).toBe(true);
        },
      ),
    );
  });

  it('jitter reaches both ends of its range', () => {
    const options = { maxAttempts: 3, initialDelayMs: 100, factor: 1 } as const;
    const at = (jitter: Jitter, r: number) => RetryPolicy.exponential({ ...options, jitter }).delayMs(1, constant(r));
    expect([at('full', 0), at('full', 0.999999)]).toEqual([0, 100]);
    expect([at('equal', 0), at('equal', 0.999999)]).toEqual([50, 100]);
  });

  it('is reproducible under a seed: each createRandom() restarts the same sequence', () => {
    const p = RetryPolicy.exponential({ maxAttempts: 6, initialDelayMs: 100, jitter: 'full', seed: 42 });
    const run = () => {
      const random = p.createRandom();
      return [1, 2, 3, 4, 5].map((n) => p.delayMs(n, random));
    };
    expect(run()).toEqual(run());
    const other = RetryPolicy.exponential({ maxAttempts: 6, initialDelayMs: 100, jitter: 'full', seed: 43 });
    const random = other.createRandom();
    expect([1, 2, 3, 4, 5].map((n) => other.delayMs(n, random))).not.toEqual(run());
  });

  it('uses the given random source when no seed is given', () => {
    const p = RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 10, jitter: 'full', random: constant(0.5) });
    expect(p.delayMs(1, p.createRandom())).toBe(5);
  });
});

describe('RetryPolicy.fixed and none', () => {
  it('fixed(delayMs, count) makes count + 1 attempts, delayMs apart', () => {
    const p = RetryPolicy.fixed(10, 2);
    expect(p.maxAttempts).toBe(3);
    expect([1, 2].map((n) => p.delayMs(n, Math.random))).toEqual([10, 10]);
    expect(() => RetryPolicy.fixed(-1, 2)).toThrow(/delayMs/);
    expect(() => RetryPolicy.fixed(10, -1)).toThrow(/count/);
  });

  it('none makes one attempt', () => {
    expect(RetryPolicy.none.maxAttempts).toBe(1);
    expect(RetryPolicy.fixed(5, 0).maxAttempts).toBe(1);
  });
});

describe('seededRandom', () => {
  it('returns numbers in [0, 1), the same for the same seed', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const a = seededRandom(seed);
        const b = seededRandom(seed);
        for (let i = 0; i < 20; i++) {
          const x = a();
          expect(x).toBe(b());
          expect(x >= 0 && x < 1).toBe(true);
        }
      }),
    );
  });
});

describe('RetryPolicy specs (plain data) and RetryPolicy.from', () => {
  it('gives every built policy a JSON spec that rebuilds an equal policy', () => {
    const policies = [
      RetryPolicy.exponential({ maxAttempts: 5, initialDelayMs: 100, factor: 3, maxDelayMs: 1_000, jitter: 'full', seed: 42 }),
      RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 10 }),
      RetryPolicy.fixed(25, 3),
      RetryPolicy.none,
    ];
    for (const p of policies) {
      const spec = JSON.parse(JSON.stringify(p.spec));
      expect(spec).toEqual(p.spec);
      const q = RetryPolicy.from(spec);
      expect(q.maxAttempts).toBe(p.maxAttempts);
      const [r1, r2] = [p.createRandom(), q.createRandom()];
      expect([1, 2, 3, 4].map((n) => q.delayMs(n, r2))).toEqual([1, 2, 3, 4].map((n) => p.delayMs(n, r1)));
    }
    expect(RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 10 }).spec).toEqual({ kind: 'exponential', maxAttempts: 2, initialDelayMs: 10, factor: 2, maxDelayMs: 1000, jitter: 'none' });
  });

  it('reads a spec without maxDelayMs (written before the cap had a default) as uncapped', () => {
    const p = RetryPolicy.from({ kind: 'exponential', maxAttempts: 20, initialDelayMs: 10 });
    expect(p.baseDelayMs(12)).toBe(10 * 2 ** 11);
    expect(RetryPolicy.from(RetryPolicy.exponential({ maxAttempts: 20, initialDelayMs: 10, maxDelayMs: Infinity }).spec!).baseDelayMs(12)).toBe(10 * 2 ** 11);
  });

  it('has no spec for a policy that draws from a random function without a seed', () => {
    expect(RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 10, random: () => 0 }).spec).toBeUndefined();
    expect(RetryPolicy.exponential({ maxAttempts: 2, initialDelayMs: 10, random: () => 0, seed: 1 }).spec).toMatchObject({ seed: 1 });
  });

  it('refuses malformed specs with InvalidRetryPolicyError', () => {
    for (const bad of [undefined, null, {}, { kind: 'forever' }, { kind: 'fixed', delayMs: '1', count: 1 }, { kind: 'exponential', maxAttempts: 0, initialDelayMs: 1 }, { kind: 'exponential', maxAttempts: 2, initialDelayMs: 1, jitter: 'most' }, { kind: 'exponential', maxAttempts: 2, initialDelayMs: 1, factor: '2' }]) {
      expect(() => RetryPolicy.from(bad as never), JSON.stringify(bad)).toThrow(InvalidRetryPolicyError);
    }
  });
});
