import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  extend,
  InvalidSliceItemError,
  ReducerError,
  replace,
  snapshotFromJSON,
  type SliceOp,
} from '../../src/index';

/** What a slice holds must be exactly what its JSON round trip restores. */
const Put = defineEvent('test/put');
const roundTrip = (session: ReturnType<typeof createSession>, defs: Parameters<typeof snapshotFromJSON>[1]) => {
  const text = JSON.stringify(session.snapshot({ includeLogs: true }));
  const other = createSession({ slices: defs });
  other.restore(snapshotFromJSON(text, defs));
  return other;
};

const sliceReturning = (name: string, op: () => SliceOp<any>, schema?: z.ZodType) =>
  defineSlice<any>(name, { policy: 'log', ...(schema ? { schema } : {}), reducers: ({ on }) => [on(Put, () => op())] });

describe('reducer output is normalised when validation is on', () => {
  it('stores the schema output: defaults, transforms, stripped keys (an own __proto__ key included)', () => {
    const Item = z.object({ n: z.number().default(5), s: z.string().transform((v) => v.toUpperCase()) });
    const raw = JSON.parse('{"s":"abc","extra":1,"__proto__":{"polluted":true}}');
    const S = sliceReturning('s', () => append(raw), Item);
    const session = createSession({ slices: [S], validation: 'always' });
    session.dispatch(Put());
    const live = session.slice(S).all();
    expect(live).toEqual([{ n: 5, s: 'ABC' }]);
    expect(Object.keys(live[0])).toEqual(['n', 's']);
    expect(Object.hasOwn(live[0], '__proto__')).toBe(false);
    expect(roundTrip(session, [S]).slice(S).all()).toEqual(live);
  });

  it('normalises extend and replace items too, keeping unchanged items by reference', () => {
    const Item = z.object({ id: z.number(), tag: z.string().default('t') });
    let step = 0;
    const S = defineSlice('s', {
      policy: 'state',
      schema: Item,
      reducers: ({ on }) => [
        on(Put, (view) => {
          step++;
          if (step === 1) return extend([{ id: 1 } as never, { id: 2, junk: true } as never]);
          return replace([view.all()[0] as never, { id: 3 } as never]);
        }),
      ],
    });
    const session = createSession({ slices: [S], validation: 'always' });
    session.dispatch(Put());
    expect(session.slice(S).all()).toEqual([{ id: 1, tag: 't' }, { id: 2, tag: 't' }]);
    const first = session.slice(S).all()[0];
    session.dispatch(Put());
    expect(session.slice(S).all()).toEqual([{ id: 1, tag: 't' }, { id: 3, tag: 't' }]);
    expect(session.slice(S).all()[0]).toBe(first);
  });

  it.each([
    ['a cycle', () => { const o: Record<string, unknown> = { a: 1 }; o['self'] = o; return o; }],
    ['a BigInt', () => ({ a: 1n })],
    ['a function', () => ({ a: () => 1 })],
    ['a symbol', () => ({ a: Symbol('x') })],
    ['undefined in an array', () => ({ a: [1, undefined] })],
    ['a hole in an array', () => ({ a: [1, , 3] })],
    ['NaN', () => ({ a: Number.NaN })],
    ['Infinity', () => ({ a: Number.POSITIVE_INFINITY })],
    ['a Date', () => ({ a: new Date(0) })],
    ['a Map', () => ({ a: new Map() })],
    ['a class instance', () => ({ a: new (class Point { x = 1 })() })],
  ])('rejects %s with a typed error and changes nothing (loose schema and no schema)', (_what, make) => {
    for (const schema of [z.looseObject({}), z.any(), undefined]) {
      const S = sliceReturning('s', () => append(make()), schema);
      const session = createSession({ slices: [S], validation: 'always' });
      let error: unknown;
      try {
        session.dispatch(Put());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ReducerError);
      expect((error as ReducerError).cause).toBeInstanceOf(InvalidSliceItemError);
      expect(session.slice(S).size).toBe(0);
      expect(() => JSON.stringify(session.snapshot({ includeLogs: true }))).not.toThrow();
    }
  });

  it('rejects an item deeper than the limit without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const S = sliceReturning('s', () => append(deep), z.any());
    const session = createSession({ slices: [S], validation: 'always', freeze: true });
    let error: unknown;
    try {
      session.dispatch(Put());
    } catch (e) {
      error = e;
    }
    expect((error as ReducerError).cause).toBeInstanceOf(InvalidSliceItemError);
    expect(session.slice(S).size).toBe(0);
  });

  it('with validation off, stores what the reducer returned (no copy, no check)', () => {
    const item = { a: 1, extra: 2 };
    const S = sliceReturning('s', () => append(item), z.object({ a: z.number() }));
    const session = createSession({ slices: [S], validation: 'off', freeze: false });
    session.dispatch(Put());
    expect(session.slice(S).latest()).toBe(item);
  });

  it('a shared (acyclic) sub-object is fine', () => {
    const shared = { x: 1 };
    const S = sliceReturning('s', () => append({ a: shared, b: shared, c: [shared, shared] }));
    const session = createSession({ slices: [S], validation: 'always' });
    session.dispatch(Put());
    expect(roundTrip(session, [S]).slice(S).all()).toEqual(session.slice(S).all());
  });
});
