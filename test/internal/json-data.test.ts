import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_ITEM_DEPTH, isJsonDataFast, jsonProblem, jsonProblemWalk, schemaGivesJson } from '../../src/internal/json-data';
import { jsonWithProtoKey, plainJsonValue } from '../json-arbitraries';

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
      fc.property(plainJsonValue(), (value) => {
        expect(isJsonDataFast(value)).toBe(true);
        expect(jsonProblem(value)).toBeUndefined();
      }),
    );
    // fc.jsonValue() alone may hold a "__proto__" key, which is not plain JSON data: the property
    // on it failed with seed 903143410 ({"":{"":{"__proto__":0}}}), and with 58 seeds in 1,000.
    fc.assert(
      fc.property(plainJsonValue(), (value) => {
        expect(isJsonDataFast(value)).toBe(true);
      }),
      { seed: 903143410 },
    );
  });

  it('an own "__proto__" key anywhere is refused by the pre-check and named by the walk', () => {
    fc.assert(
      fc.property(jsonWithProtoKey, (value) => {
        expect(isJsonDataFast(value)).toBe(false);
        expect(jsonProblem(value)?.message).toBe('an own "__proto__" key is not data');
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

describe('schemaGivesJson: schemas whose output is JSON data by construction (decided once, conservatively)', () => {
  it('accepts plain data schemas', () => {
    const Item = z.object({
      id: z.string(),
      n: z.number().int(),
      ok: z.boolean(),
      none: z.null(),
      kind: z.enum(['a', 'b']),
      lit: z.literal('x'),
      tags: z.array(z.string()),
      pair: z.tuple([z.string(), z.number()]),
      maybe: z.string().optional(),
      nul: z.number().nullable(),
      def: z.array(z.string()).default([]),
      either: z.union([z.string(), z.object({ x: z.number() })]),
      strict: z.strictObject({ a: z.string() }),
    });
    expect(schemaGivesJson(Item)).toBe(true);
    expect(schemaGivesJson(z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b'), v: z.number() })]))).toBe(true);
    expect(schemaGivesJson(z.number())).toBe(true);
  });

  it('refuses anything whose output may not be JSON data', () => {
    for (const schema of [
      z.object({ at: z.date() }),
      z.object({ x: z.unknown() }),
      z.object({ x: z.any() }),
      z.looseObject({ a: z.string() }),
      z.object({ a: z.string() }).passthrough(),
      z.record(z.string(), z.number()),
      z.object({ a: z.string().transform((s) => new Date(s)) }),
      z.object({ n: z.bigint() }),
      z.string().optional(), // an item may not be undefined
      z.array(z.string().optional()), // nor an array element
      z.object({ a: z.string() }).and(z.object({ b: z.string() })),
      z.lazy(() => z.string()),
      z.string().catch('x'),
      z.nan(),
      z.custom<string>(() => true),
      42,
      undefined,
    ]) {
      expect(schemaGivesJson(schema)).toBe(false);
    }
  });

  it('its verdict agrees with jsonProblem on the outputs of accepted schemas (fast-check)', () => {
    const Item = z.object({ s: z.string(), n: z.number(), o: z.string().optional(), a: z.array(z.union([z.string(), z.null()])) });
    expect(schemaGivesJson(Item)).toBe(true);
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const r = Item.safeParse(input);
        if (r.success) expect(jsonProblem(r.data)).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(fc.record({ s: fc.string(), n: fc.double({ noNaN: false }), o: fc.option(fc.string(), { nil: undefined }), a: fc.array(fc.option(fc.string(), { nil: null })) }), (input) => {
        const r = Item.safeParse(input);
        if (r.success) expect(jsonProblem(r.data)).toBeUndefined();
      }),
    );
  });
});
