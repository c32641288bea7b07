import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ITEM_DEPTH, isJsonDataFast, jsonProblem, jsonProblemWalk } from '../../src/internal/json-data';

class Point {
  constructor(readonly x: number) {}
}

/** Leaves that are not JSON data, each in a form the walk names. */
const badLeaf = fc.constantFrom<unknown>(
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  () => 1,
  Symbol('s'),
  10n,
  new Date(0),
  new Point(1),
  new Map(),
);

/** Values that are mostly JSON data, sometimes with a bad leaf, a hole, a `__proto__` key or a null-prototype object. */
const mixed = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    badLeaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 4 }),
    tie('value').map((v) => {
      const holey: unknown[] = [v];
      holey.length = 3;
      return holey;
    }),
    tie('value').map((v) => Object.assign(JSON.parse('{"__proto__": 1}') as object, { v })),
    tie('value').map((v) => Object.assign(Object.create(null) as object, { v })),
  ),
}));

describe('jsonProblem: the recursive pre-check and the walk', () => {
  it('the pre-check accepts only what the walk accepts, and jsonProblem gives the walk\'s answer', () => {
    fc.assert(
      fc.property(mixed.value, (value) => {
        if (isJsonDataFast(value)) expect(jsonProblemWalk(value)).toBeUndefined();
        expect(jsonProblem(value)).toEqual(jsonProblemWalk(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('the pre-check answers plain JSON data by itself', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(isJsonDataFast(value)).toBe(true);
        expect(jsonProblem(value)).toBeUndefined();
      }),
    );
  });

  it('shares the depth limit with the walk: maxDepth levels pass, one more is named by the walk', () => {
    const nest = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    // The outermost array is at depth 0, so levels = maxDepth + 1 arrays reach depth maxDepth.
    expect(isJsonDataFast(nest(MAX_ITEM_DEPTH + 1))).toBe(true);
    expect(jsonProblem(nest(MAX_ITEM_DEPTH + 1))).toBeUndefined();
    expect(isJsonDataFast(nest(MAX_ITEM_DEPTH + 2))).toBe(false);
    expect(jsonProblem(nest(MAX_ITEM_DEPTH + 2))?.message).toBe(`it nests deeper than ${MAX_ITEM_DEPTH} levels`);
    expect(jsonProblem(nest(12), 10)).toEqual(jsonProblemWalk(nest(12), 10));
    // Limits beyond the pre-check's recursion bound go to the walk alone.
    expect(isJsonDataFast(nest(3), 5_000)).toBe(false);
    expect(jsonProblem(nest(3), 5_000)).toBeUndefined();
  });

  it('a stack too deep for the recursion falls back to the walk instead of rejecting good data', () => {
    const nest = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = { v };
      return v;
    };
    const item = nest(MAX_ITEM_DEPTH);
    // Recurse until little stack is left, then check the item there.
    let answer: ReturnType<typeof jsonProblem> | 'not reached' = 'not reached';
    let fastThere: boolean | undefined;
    const descend = (n: number): void => {
      try {
        descend(n + 1);
      } catch {
        // The stack is nearly exhausted here: the pre-check overflows, the walk does not.
        if (answer === 'not reached') {
          fastThere = isJsonDataFast(item);
          answer = jsonProblem(item);
        }
      }
    };
    descend(0);
    expect(fastThere).toBe(false);
    expect(answer).toBeUndefined();
  });

  it('a getter that throws makes jsonProblem throw (callers report it), not the pre-check', () => {
    const hostile = Object.defineProperty({}, 'x', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(isJsonDataFast(hostile)).toBe(false);
    expect(() => jsonProblem(hostile)).toThrow('boom');
  });

  it('a cycle fails the pre-check and the walk names it', () => {
    const a: Record<string, unknown> = { x: 1 };
    a['self'] = { back: a };
    expect(isJsonDataFast(a)).toBe(false);
    expect(jsonProblem(a)).toEqual({ path: ['self', 'back'], message: 'it refers to an object that contains it (a cycle)' });
  });

  it('heavy sharing exhausts the pre-check\'s node budget instead of taking exponential time; the walk accepts it', () => {
    // 2^60 paths, 61 distinct objects.
    let v: unknown = { leaf: true };
    for (let i = 0; i < 60; i++) v = [v, v];
    expect(isJsonDataFast(v)).toBe(false);
    expect(jsonProblem(v)).toBeUndefined();
  });
});
