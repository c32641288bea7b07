import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  clear,
  ComputedError,
  createSession,
  defineComputed,
  defineEvent,
  defineSlice,
  extend,
  InvalidComputedError,
  replace,
  SliceWindow,
  type RxSliceError,
  type SliceWindowPolicy,
} from '../../src/index';
import { Count, Notes, Noted } from './computed-fixtures';

/**
 * Incremental computed slices (docs/ARCHITECTURE.md "Computed slices"; the seed's Proposal 1, "O(n) to
 * O(1)"): the value is folded from the items appended since the last value, and recomputed
 * from scratch after anything else (replace, clear, eviction, seed, reset, restore).
 */

const Item = z.object({ id: z.number().int(), tag: z.string() });
type Item = z.infer<typeof Item>;
const Added = defineEvent('items/added', z.object({ items: z.array(Item) }));
const Retagged = defineEvent('items/retagged', z.object({ tag: z.string() }));
const Cleared = defineEvent('items/cleared', z.object({ tag: z.string().nullable() }));

const itemsSlice = (window?: SliceWindowPolicy<Item>) =>
  defineSlice('items', {
    policy: 'log',
    schema: Item,
    ...(window === undefined ? {} : { window }),
    reducers: ({ on }) => [
      on(Added, (_v, e) => (e.payload.items.length === 1 ? append(e.payload.items[0] as Item) : extend(e.payload.items))),
      // replaceLatest-like: a replace that changes the newest item
      on(Retagged, (v, e) => {
        const all = v.all();
        return all.length === 0 ? replace(all) : replace([...all.slice(0, -1), { ...(all.at(-1) as Item), tag: e.payload.tag }]);
      }),
      on(Cleared, (_v, e) => (e.payload.tag === null ? clear() : clear<Item>((i) => i.tag === e.payload.tag))),
    ],
  });
const Items = itemsSlice();

/** An index tag -> ids (a new object per fold, sharing the untouched id lists), and a fold that records what it saw. */
type Index = Readonly<Record<string, readonly number[]>>;
function tracked() {
  const seen: number[] = [];
  let inits = 0;
  const fold = (index: Index, items: readonly Item[]): Index => {
    const next: Record<string, readonly number[]> = { ...index };
    for (const item of items) {
      seen.push(item.id);
      next[item.tag] = [...(next[item.tag] ?? []), item.id];
    }
    return next;
  };
  const init = (): Index => {
    inits++;
    return {};
  };
  return { seen, fold, init, get inits() { return inits; } };
}
const fromScratch = (items: readonly Item[]): Index => {
  const index: Record<string, number[]> = {};
  for (const item of items) (index[item.tag] ??= []).push(item.id);
  return index;
};

const batch = (from: number, n: number, tag = 'a'): Item[] => Array.from({ length: n }, (_, k) => ({ id: from + k, tag }));

describe('defineComputed.incremental', () => {
  it('folds each appended item exactly once: appends, extends and a batch of events', () => {
    const t = tracked();
    const ByTag = defineComputed.incremental('byTag', Items, { init: t.init, fold: t.fold });
    const session = createSession({ slices: [Items] });
    const values: Index[] = [];
    session.computed(ByTag).value$.subscribe((v) => values.push(v));
    session.dispatch(Added({ items: batch(0, 1) }));
    session.dispatch(Added({ items: [...batch(1, 2, 'b'), ...batch(3, 1)] }));
    session.batch(() => {
      session.dispatch(Added({ items: batch(4, 1, 'c') }));
      session.dispatch(Added({ items: batch(5, 2) }));
    });
    expect(t.seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(t.inits).toBe(1);
    expect(values).toEqual([{}, { a: [0] }, { a: [0, 3], b: [1, 2] }, { a: [0, 3, 5, 6], b: [1, 2], c: [4] }]);
    // lazy and memoized like any computed slice: reading again folds nothing
    expect(session.computed(ByTag).latest()).toBe(values.at(-1));
    expect(t.seen).toHaveLength(7);
  });

  it('folds what was appended while nobody read it, once, on the next read', () => {
    const t = tracked();
    const ByTag = defineComputed.incremental('byTag', Items, { init: t.init, fold: t.fold });
    const session = createSession({ slices: [Items] });
    expect(session.computed(ByTag).latest()).toEqual({});
    for (let i = 0; i < 5; i++) session.dispatch(Added({ items: batch(i, 1) }));
    expect(t.seen).toEqual([]);
    expect(session.computed(ByTag).latest()).toEqual({ a: [0, 1, 2, 3, 4] });
    expect(t.seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('recomputes from scratch after a replace, a clear, an eviction, a seed, a reset and a restore', () => {
    const t = tracked();
    const Windowed = itemsSlice(SliceWindow.count(3));
    const ByTag = defineComputed.incremental('byTag', Windowed, { init: t.init, fold: t.fold });
    const session = createSession({ slices: [Windowed] });
    const handle = session.computed(ByTag);
    handle.value$.subscribe();
    const check = (inits: number): void => {
      expect(handle.latest()).toEqual(fromScratch(session.read(Windowed)));
      expect(t.inits).toBe(inits);
    };
    session.dispatch(Added({ items: batch(0, 2) }));
    check(1);
    session.dispatch(Retagged({ tag: 'z' })); // replace
    check(2);
    session.dispatch(Added({ items: batch(2, 1) }));
    check(2); // an append into room left in the window folds
    session.dispatch(Added({ items: batch(3, 1) })); // the window evicts item 0
    check(3);
    const snapshot = session.snapshot({ includeLogs: true });
    session.dispatch(Cleared({ tag: 'a' })); // clear(predicate)
    check(4);
    session.dispatch(Cleared({ tag: null })); // clear()
    check(5);
    session.restore(snapshot);
    check(6);
    session.slice(Windowed).seed(batch(10, 2, 'b'));
    check(7);
    session.reset();
    check(8);
    session.dispatch(Added({ items: batch(20, 1) }));
    check(8);
    expect(handle.latest()).toEqual({ a: [20] });
  });

  it('equals the from-scratch value after any sequence of appends, replaces, clears, evictions, batches, snapshots and restores (property)', () => {
    type Op =
      | { kind: 'add'; n: number; tag: string }
      | { kind: 'retag'; tag: string }
      | { kind: 'clear'; tag: string | null }
      | { kind: 'batch'; n: number }
      | { kind: 'snapshot' }
      | { kind: 'restore' }
      | { kind: 'read' };
    const tag = fc.constantFrom('a', 'b', 'c');
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 8, arbitrary: fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 1, max: 3 }), tag }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('retag' as const), tag }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), tag: fc.option(tag, { nil: null }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('batch' as const), n: fc.integer({ min: 1, max: 3 }) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'restore' as const }) },
      { weight: 3, arbitrary: fc.constant({ kind: 'read' as const }) },
    );
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }), fc.boolean(), fc.array(op, { maxLength: 50 }), (bound, observed, ops) => {
        const Slice = itemsSlice(bound === undefined ? undefined : SliceWindow.count(bound));
        const t = tracked();
        const Incremental = defineComputed.incremental('incremental', Slice, { init: t.init, fold: t.fold });
        const Plain = defineComputed('plain', [Slice], fromScratch);
        const session = createSession({ slices: [Slice] });
        const emitted: Index[] = [];
        if (observed) session.computed(Incremental).value$.subscribe((v) => emitted.push(v));
        let id = 0;
        let saved: ReturnType<typeof session.snapshot> | undefined;
        const compare = (): void => expect(session.computed(Incremental).latest()).toEqual(session.computed(Plain).latest());
        for (const o of ops) {
          if (o.kind === 'add') session.dispatch(Added({ items: batch(id, o.n, o.tag) }));
          else if (o.kind === 'retag') session.dispatch(Retagged({ tag: o.tag }));
          else if (o.kind === 'clear') session.dispatch(Cleared({ tag: o.tag }));
          else if (o.kind === 'batch') session.batch(() => { for (let k = 0; k < o.n; k++) session.dispatch(Added({ items: batch(id + k, 1, 'b') })); });
          else if (o.kind === 'snapshot') saved = session.snapshot({ includeLogs: true });
          else if (o.kind === 'restore') { if (saved !== undefined) session.restore(saved); }
          else compare();
          if (o.kind === 'add' || o.kind === 'batch') id += o.n;
          if (observed) expect(emitted.at(-1)).toEqual(fromScratch(session.read(Slice)));
        }
        compare();
        // Without a window and with appends only, each item was folded once.
        if (bound === undefined && ops.every((o) => o.kind === 'add' || o.kind === 'batch' || o.kind === 'read')) {
          expect(t.seen).toEqual(Array.from({ length: id }, (_, k) => k));
        }
        session.dispose();
      }),
    );
  });

  it('folds from scratch after invalidate()', () => {
    const t = tracked();
    const ByTag = defineComputed.incremental('byTag', Items, { init: t.init, fold: t.fold });
    const session = createSession({ slices: [Items] });
    session.dispatch(Added({ items: batch(0, 2) }));
    expect(session.computed(ByTag).latest()).toEqual({ a: [0, 1] });
    session.computed(ByTag).invalidate();
    expect(session.computed(ByTag).latest()).toEqual({ a: [0, 1] });
    expect([t.inits, t.seen]).toEqual([2, [0, 1, 0, 1]]);
  });

  it('is glitch-free in a diamond with a plain computed slice', () => {
    const t = tracked();
    const ByTag = defineComputed.incremental('byTag', Items, { init: t.init, fold: t.fold });
    const Size = defineComputed('size', [Items], (items) => items.length);
    const Both = defineComputed('both', [ByTag, Size], (index, size) => `${Object.values(index).flat().length}/${size}`);
    const session = createSession({ slices: [Items] });
    const seen: string[] = [];
    session.computed(Both).value$.subscribe((v) => seen.push(v));
    session.dispatch(Added({ items: batch(0, 2) }));
    session.dispatch(Added({ items: batch(2, 1) }));
    expect(seen).toEqual(['0/0', '2/2', '3/3']);
  });

  it('reports a throwing fold, keeps the previous value and folds from scratch on the next change', () => {
    let failNext = false;
    const Count2 = defineComputed.incremental('count', Items, {
      init: () => 0,
      fold: (n, items: readonly Item[]) => {
        if (failNext) {
          failNext = false;
          throw new Error('fold failed');
        }
        return n + items.length;
      },
    });
    const session = createSession({ slices: [Items] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const values: number[] = [];
    session.computed(Count2).value$.subscribe((v) => values.push(v));
    session.dispatch(Added({ items: batch(0, 2) }));
    failNext = true;
    session.dispatch(Added({ items: batch(2, 1) }));
    expect(errors[0]).toBeInstanceOf(ComputedError);
    expect(session.computed(Count2).latest()).toBe(2);
    session.dispatch(Added({ items: batch(3, 1) }));
    expect(values).toEqual([0, 2, 4]);
  });

  it('rejects a computed source and missing functions with InvalidComputedError', () => {
    const Plain = defineComputed('plain', [Items], (items) => items.length);
    expect(() => defineComputed.incremental('x', Plain as never, { init: () => 0, fold: (n: number) => n })).toThrow(InvalidComputedError);
    expect(() => defineComputed.incremental('x', Items, { init: () => 0 } as never)).toThrow(/pass \{ init/);
    expect(() => defineComputed.incremental('', Items, { init: () => 0, fold: (n: number) => n })).toThrow(InvalidComputedError);
  });
});

describe('computed values are frozen like slice items', () => {
  it('deep-freezes the value of project and of fold when the session freezes items', () => {
    const Summary = defineComputed('summary', [Count, Notes], (count, notes) => ({ n: count[0]?.n ?? 0, texts: notes.map((x) => x.text), meta: { at: [1, 2] } }));
    const Texts = defineComputed.incremental('texts', Notes, { init: (): { all: string[] } => ({ all: [] }), fold: (v, notes) => ({ all: [...v.all, ...notes.map((x) => x.text)] }) });
    const session = createSession({ slices: [Count, Notes], freeze: true });
    session.dispatch(Noted({ text: 'hi' }));
    const summary = session.computed(Summary).latest();
    expect(Object.isFrozen(summary)).toBe(true);
    expect(Object.isFrozen(summary.texts)).toBe(true);
    expect(Object.isFrozen(summary.meta.at)).toBe(true);
    expect(() => (summary.texts as string[]).push('x')).toThrow(TypeError);
    const texts = session.computed(Texts).latest();
    expect(Object.isFrozen(texts) && Object.isFrozen(texts.all)).toBe(true);
  });

  it('hands out a project that returns the slice items (a read-only view) as is, and freezes nothing when the session does not freeze', () => {
    const Same = defineComputed('same', [Notes], (notes) => ({ notes }));
    const frozen = createSession({ slices: [Notes], freeze: true });
    frozen.dispatch(Noted({ text: 'a' }));
    expect(frozen.computed(Same).latest().notes).toEqual([{ text: 'a' }]);
    const loose = createSession({ slices: [Notes], freeze: false });
    loose.dispatch(Noted({ text: 'a' }));
    expect(Object.isFrozen(loose.computed(Same).latest())).toBe(false);
  });
});

describe('MemoryStorage.appendedOnlySince', () => {
  it('is true across commits that only appended, false after any other change, and ignores rolled-back transactions', async () => {
    const { MemoryStorage } = await import('../../src/index');
    const s = new MemoryStorage<number>([1]);
    expect(s.appendedOnlySince(0)).toBe(true);
    s.append(2, 0);
    s.extend([3, 4], 0);
    expect([s.appendedOnlySince(0), s.appendedOnlySince(1), s.appendedOnlySince(2), s.appendedOnlySince(3)]).toEqual([true, true, true, false]);
    const tx = s.begin();
    tx.dropFront(1);
    tx.rollback();
    expect(s.appendedOnlySince(0)).toBe(true);
    const evicting = s.begin();
    evicting.append(5, 0);
    evicting.dropFront(1);
    evicting.commit();
    expect(s.appendedOnlySince(2)).toBe(false);
    expect(s.appendedOnlySince(3)).toBe(true);
    s.replace([9], 0);
    expect(s.appendedOnlySince(3)).toBe(false);
    const captured = s.snapshot();
    s.append(10, 0);
    expect(s.appendedOnlySince(4)).toBe(true);
    const restoring = s.begin();
    restoring.restore(captured, 0);
    restoring.commit();
    expect(s.appendedOnlySince(5)).toBe(false);
    s.clear();
    expect(s.appendedOnlySince(6)).toBe(false);
    expect(s.appendedOnlySince(7)).toBe(true);
    s.extend([1, 2], 0);
    const updating = s.begin();
    updating.updateAt?.(0, 5, 0);
    updating.commit();
    expect(s.appendedOnlySince(8)).toBe(false);
    expect(s.appendedOnlySince(9)).toBe(true);
  });
});
