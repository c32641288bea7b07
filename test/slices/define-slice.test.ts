import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  appendAll,
  clear,
  createSession,
  defineEvent,
  defineSlice,
  extend,
  InvalidSliceDefinitionError,
  NoLatestItemError,
  none,
  ReducerError,
  replace,
  replaceLatest,
  replaceLatestBy,
  updateAt,
  upsertBy,
  withEffects,
  type SliceConfig,
} from '../../src/index';

const Item = z.object({ id: z.string(), v: z.number() });
type Item = z.infer<typeof Item>;
const Put = defineEvent('items/put', z.union([Item, z.array(Item)]));
const One = defineEvent('items/one', Item);

describe('slice ops', () => {
  it('are plain data', () => {
    expect(append(1)).toEqual({ kind: 'append', item: 1 });
    expect(extend([1, 2])).toEqual({ kind: 'extend', items: [1, 2] });
    expect(replace([3])).toEqual({ kind: 'replace', items: [3] });
    expect(updateAt(2, 'x')).toEqual({ kind: 'updateAt', index: 2, item: 'x' });
    expect(clear()).toEqual({ kind: 'clear' });
    expect(clear((x: number) => x > 1).kind).toBe('clear');
    expect(none()).toEqual({ kind: 'none' });
    expect(withEffects(withEffects(append(1), [{ type: 'a', payload: 1 }]), [{ type: 'b', payload: 2 }]).effects).toEqual([
      { type: 'a', payload: 1 },
      { type: 'b', payload: 2 },
    ]);
  });
});

describe('defineSlice', () => {
  it('freezes the declaration and its initial items', () => {
    const S = defineSlice('s', { policy: 'state', initial: [{ a: { b: 1 } }] });
    expect(Object.isFrozen(S)).toBe(true);
    expect(Object.isFrozen(S.initial[0]?.a)).toBe(true);
    expect(S.reducers).toEqual([]);
  });

  it('rejects empty or reserved names and unknown policies', () => {
    expect(() => defineSlice('', { policy: 'state' })).toThrow(InvalidSliceDefinitionError);
    expect(() => defineSlice('rxslice.x', { policy: 'state' })).toThrow(/reserved/);
    expect(() => defineSlice('x', { policy: 'other' as 'state' })).toThrow(/policy must be/);
  });

  it('validates initial items against the schema when the slice is defined', () => {
    expect(() => defineSlice('s', { policy: 'state', schema: z.object({ n: z.number() }), initial: [{ n: 'x' } as never] })).toThrow(/initial item 0 does not match its schema/);
  });
});

describe('helper reducers', () => {
  const run = (reducer: NonNullable<SliceConfig<Item>['reducers']>) => {
    const S = defineSlice<Item>('items', { policy: 'log', schema: Item, reducers: reducer });
    const s = createSession({ slices: [S], validation: 'always' });
    return { s, S };
  };

  it('appendAll appends a payload or each element of an array payload', () => {
    const { s, S } = run(({ on }) => [on(Put, appendAll())]);
    s.dispatch(Put({ id: 'a', v: 1 }));
    s.dispatch(Put([{ id: 'b', v: 2 }, { id: 'c', v: 3 }]));
    expect(s.slice(S).all().map((i) => i.id)).toEqual(['a', 'b', 'c']);
  });

  it('replaceLatest replaces the last item, appending when empty', () => {
    const { s, S } = run(({ on }) => [on(One, replaceLatest())]);
    s.dispatch(One({ id: 'a', v: 1 }));
    s.dispatch(One({ id: 'b', v: 2 }));
    expect(s.slice(S).all()).toEqual([{ id: 'b', v: 2 }]);
  });

  it('replaceLatestBy replaces the newest item with the same key', () => {
    const { s, S } = run(({ on }) => [on(Put, appendAll()), on(One, replaceLatestBy('id'))]);
    s.dispatch(Put([{ id: 'a', v: 1 }, { id: 'b', v: 1 }, { id: 'a', v: 2 }]));
    s.dispatch(One({ id: 'a', v: 9 }));
    s.dispatch(One({ id: 'z', v: 0 }));
    expect(s.slice(S).all()).toEqual([{ id: 'a', v: 1 }, { id: 'b', v: 1 }, { id: 'a', v: 9 }, { id: 'z', v: 0 }]);
  });

  it('upsertBy updates in place or appends', () => {
    const { s, S } = run(({ on }) => [on(Put, upsertBy('id'))]);
    s.dispatch(Put([{ id: 'a', v: 1 }, { id: 'b', v: 1 }]));
    s.dispatch(Put([{ id: 'b', v: 2 }, { id: 'c', v: 3 }]));
    expect(s.slice(S).all()).toEqual([{ id: 'a', v: 1 }, { id: 'b', v: 2 }, { id: 'c', v: 3 }]);
  });

  it('onLatest returning the same item changes nothing', () => {
    const Touch = defineEvent('t/touched');
    const S = defineSlice('s', { policy: 'state', initial: [{ n: 1 }], reducers: ({ onLatest }) => [onLatest(Touch, (l) => l ?? { n: 0 })] });
    const s = createSession({ slices: [S] });
    s.dispatch(Touch());
    expect(s.slice(S).version).toBe(0);
  });

  it('produceLatest drafts the latest item with immer, and errors clearly when empty', () => {
    const Done = defineEvent('plan/stepDone', z.object({ index: z.number() }));
    const Plan = defineSlice('plan', {
      policy: 'state',
      initial: [{ steps: [{ done: false }, { done: false }] }],
      reducers: ({ produceLatest }) => [produceLatest(Done, (plan, e) => { plan.steps[e.payload.index]!.done = true; })],
    });
    const s = createSession({ slices: [Plan] });
    const before = s.slice(Plan).latest();
    s.dispatch(Done({ index: 1 }));
    expect(s.slice(Plan).latest()).toEqual({ steps: [{ done: false }, { done: true }] });
    expect(before?.steps[1]?.done).toBe(false);
    expect(s.slice(Plan).latest()?.steps[0]).toBe(before?.steps[0]); // structural sharing
    s.slice(Plan).clear();
    let caught: unknown;
    try {
      s.dispatch(Done({ index: 0 }));
    } catch (e) {
      caught = e;
    }
    expect((caught as ReducerError).cause).toBeInstanceOf(NoLatestItemError);
  });
});

describe('defineSlice initial items', () => {
  it('are parsed with the schema (its output kept) and must be plain JSON data; a bad one is InvalidSliceDefinitionError', () => {
    const Trimmed = defineSlice('trimmed', { policy: 'state', schema: z.object({ name: z.string().trim() }), initial: [{ name: '  ada ' }], reducers: () => [] });
    expect(Trimmed.initial).toEqual([{ name: 'ada' }]);
    expect(Object.isFrozen(Trimmed.initial[0])).toBe(true);
    expect(() => defineSlice('bad', { policy: 'state', schema: z.object({ n: z.number() }), initial: [{ n: 'x' } as never], reducers: () => [] })).toThrow(/initial item 0 does not match its schema/);
    expect(() => defineSlice('nan', { policy: 'state', initial: [{ n: Number.NaN }], reducers: () => [] })).toThrow(/initial item 0 is not plain JSON data/);
  });
});
