/**
 * Workload 7 — snapshot/restore: ten slices of 1,000 `{ id, text }` items.
 *
 * - 7m, in memory: 10,000 iterations of "take a snapshot, restore one": the restored
 *   snapshot alternates between two captures A (the 10 × 1,000 items) and B (one more item
 *   per slice) taken before the loop, so every restore really changes the state.
 *   Reports ns per snapshot + restore.
 * - 7j, JSON: 100 iterations of "snapshot, `JSON.stringify`, parse, restore". rxslice reads
 *   the JSON with `snapshotFromJSON`, which validates every item with the slice's zod schema
 *   (peers restore the parsed object unchecked); `rxslice (no schema)` shows the cost without.
 *   Reports ns per round trip.
 */
import { BehaviorSubject, type SchedulerLike } from 'rxjs';
import { combineReducers, legacy_createStore as createReduxStore, type Reducer } from 'redux';
import { configureStore, createAction, createSlice, combineReducers as rtkCombineReducers, type PayloadAction } from '@reduxjs/toolkit';
import { createStore as createElfStore, enableElfProdMode, getStoresSnapshot, setProp, withProps, type Store } from '@ngneat/elf';
import { createStore as createZustandStore } from 'zustand/vanilla';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, append, snapshotFromJSON, type Snapshot } from '../../src/index';
import { checkEqual, measure, nowMs, type Impl, type Ready, type RunResult } from '../lib/measure';
import type { Workload } from './workload';
import { coarseClock } from './coarse-clock';

/** In-memory snapshot + restore iterations in the timed run. */
export const SNAPSHOT_RESTORES = 10_000;
/** JSON round trips in the timed run. */
export const JSON_ROUND_TRIPS = 100;
const SLICES = 10;
const ITEMS = 1_000;

/** One item. */
interface Item {
  readonly id: number;
  readonly text: string;
}
const names = Array.from({ length: SLICES }, (_, i) => `slice${i}`);
const itemsOf = (slice: number, count: number): Item[] =>
  Array.from({ length: count }, (_, j) => ({ id: slice * 10_000 + j, text: `item ${j} of slice ${slice}` }));

/** What each contender exposes: its own snapshot value, restore, and a way to add one item per slice. */
interface Snapshotting<TSnapshot> {
  snapshot(): TSnapshot;
  restore(snapshot: TSnapshot): void;
  /** JSON text of a snapshot, and the snapshot read back from it (the contender's own way). */
  toJSON(snapshot: TSnapshot): string;
  fromJSON(text: string): TSnapshot;
  /** Appends one item to every slice (used once, before the loop, to make capture B). */
  grow(): void;
  /** Sizes of the slices, and the last item's id of slice 0, read from the current state. */
  sizes(): number[];
  lastId(slice: number): number;
}

function checkState(s: Snapshotting<unknown>, grown: boolean, what: string): void {
  const sizes = s.sizes();
  for (let i = 0; i < SLICES; i++) checkEqual(sizes[i], grown ? ITEMS + 1 : ITEMS, `${what}: size of slice ${i}`);
  checkEqual(s.lastId(SLICES - 1), (SLICES - 1) * 10_000 + (grown ? ITEMS : ITEMS - 1), `${what}: last id of the last slice`);
}

async function inMemoryRun<T>(make: () => Snapshotting<T>, ops: number, ready: Ready): Promise<RunResult> {
  const s = make();
  const a = s.snapshot();
  s.grow();
  const b = s.snapshot();
  checkState(s, true, 'after grow');
  let last: T = a;
  await ready();
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) {
    last = s.snapshot();
    s.restore(k % 2 === 0 ? a : b);
  }
  const ms = nowMs() - t0;
  const endsOnA = (ops - 1) % 2 === 0;
  checkState(s, !endsOnA, 'after the loop');
  // The last capture holds the state before the last restore: restoring it flips the state back.
  s.restore(last);
  checkState(s, endsOnA, 'after restoring the last capture');
  return { ms, store: s };
}

function jsonRun<T>(make: () => Snapshotting<T>, ops: number): RunResult {
  const s = make();
  s.grow();
  let bytes = 0;
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) {
    const text = s.toJSON(s.snapshot());
    bytes = text.length;
    s.restore(s.fromJSON(text));
  }
  const ms = nowMs() - t0;
  checkState(s, true, 'after the JSON round trips');
  return { ms, extra: { jsonBytes: bytes }, store: s };
}

function plain(): Snapshotting<Item[][]> {
  let states: Item[][] = names.map((_, i) => itemsOf(i, ITEMS));
  return {
    snapshot: () => states.slice(),
    restore: (snapshot) => void (states = snapshot.slice()),
    toJSON: (snapshot) => JSON.stringify(snapshot),
    fromJSON: (text) => JSON.parse(text) as Item[][],
    grow: () => void (states = states.map((items, i) => [...items, { id: i * 10_000 + items.length, text: 'grown' }])),
    sizes: () => states.map((items) => items.length),
    lastId: (slice) => states[slice]!.at(-1)!.id,
  };
}

const ItemSchema = z.object({ id: z.number(), text: z.string() });
const Grown = defineEvent('items/grown');
const rxsliceSlices = (withSchema: boolean) =>
  names.map((name, i) =>
    defineSlice(name, {
      policy: 'state',
      ...(withSchema ? { schema: ItemSchema } : {}),
      initial: itemsOf(i, ITEMS),
      reducers: ({ on }) => [on(Grown, (view) => append({ id: i * 10_000 + view.size, text: 'grown' }))],
    }),
  );

function rxslice(withSchema: boolean, scheduler?: () => SchedulerLike): () => Snapshotting<Snapshot> {
  return () => {
    const slices = rxsliceSlices(withSchema);
    const session = createSession({ slices, ...(scheduler === undefined ? {} : { scheduler: scheduler() }) });
    const handles = slices.map((s) => session.slice(s));
    return {
      snapshot: () => session.snapshot(),
      restore: (snapshot) => session.restore(snapshot),
      toJSON: (snapshot) => JSON.stringify(snapshot),
      fromJSON: (text) => snapshotFromJSON(text, slices),
      grow: () => void session.dispatch(Grown()),
      sizes: () => handles.map((h) => h.size),
      lastId: (slice) => handles[slice]!.latest()!.id,
    };
  };
}

const ArraysGrown = defineEvent('arrays/grown');
/**
 * Issue 36's shape: ten `state` slices, each holding one item that is the array of 1,000 objects
 * (the peers' state is the same: one array per key).
 */
function rxsliceArrays(): Snapshotting<Snapshot> {
  const slices = names.map((name, i) =>
    defineSlice(name, {
      policy: 'state',
      initial: [itemsOf(i, ITEMS)],
      reducers: ({ on }) => [
        on(ArraysGrown, (view) => {
          const items = view.latest() ?? [];
          return append([...items, { id: i * 10_000 + items.length, text: 'grown' }]);
        }),
      ],
    }),
  );
  const session = createSession({ slices });
  const handles = slices.map((s) => session.slice(s));
  return {
    snapshot: () => session.snapshot(),
    restore: (snapshot) => session.restore(snapshot),
    toJSON: (snapshot) => JSON.stringify(snapshot),
    fromJSON: (text) => snapshotFromJSON(text, slices),
    grow: () => void session.dispatch(ArraysGrown()),
    sizes: () => handles.map((h) => h.latest()!.length),
    lastId: (slice) => handles[slice]!.latest()!.at(-1)!.id,
  };
}

function rxjs(): Snapshotting<readonly (readonly Item[])[]> {
  const subjects = names.map((_, i) => new BehaviorSubject<readonly Item[]>(itemsOf(i, ITEMS)));
  return {
    snapshot: () => subjects.map((s) => s.value),
    restore: (snapshot) => subjects.forEach((s, i) => s.next(snapshot[i]!)),
    toJSON: (snapshot) => JSON.stringify(snapshot),
    fromJSON: (text) => JSON.parse(text) as Item[][],
    grow: () => subjects.forEach((s, i) => s.next([...s.value, { id: i * 10_000 + s.value.length, text: 'grown' }])),
    sizes: () => subjects.map((s) => s.value.length),
    lastId: (slice) => subjects[slice]!.value.at(-1)!.id,
  };
}

const RESTORED = 'session/restored';
const GROWN = 'items/grown';

/** Redux 5: the root reducer replaces the state on a restore action (the documented "reset" pattern). */
function redux(): Snapshotting<Record<string, readonly Item[]>> {
  const reducers: Record<string, Reducer<readonly Item[]>> = {};
  names.forEach((name, i) => {
    reducers[name] = (state = itemsOf(i, ITEMS), action) =>
      action.type === GROWN ? [...state, { id: i * 10_000 + state.length, text: 'grown' }] : state;
  });
  const combined = combineReducers(reducers);
  type State = ReturnType<typeof combined>;
  const root = (state: State | undefined, action: { type: string; payload?: State }): State =>
    action.type === RESTORED ? action.payload! : combined(state, action);
  const store = createReduxStore(root);
  return {
    snapshot: () => store.getState(),
    restore: (snapshot) => void store.dispatch({ type: RESTORED, payload: snapshot }),
    toJSON: (snapshot) => JSON.stringify(snapshot),
    fromJSON: (text) => JSON.parse(text) as State,
    grow: () => void store.dispatch({ type: GROWN }),
    sizes: () => names.map((n) => store.getState()[n]!.length),
    lastId: (slice) => store.getState()[names[slice]!]!.at(-1)!.id,
  };
}

/** Redux Toolkit 2: createSlice per slice, a root reducer handling the restore action. */
function rtk(): Snapshotting<Record<string, Item[]>> {
  const grown = createAction(GROWN);
  const slices = names.map((name, i) =>
    createSlice({
      name,
      initialState: itemsOf(i, ITEMS),
      reducers: {},
      extraReducers: (b) =>
        b.addCase(grown, (state) => {
          state.push({ id: i * 10_000 + state.length, text: 'grown' });
        }),
    }),
  );
  const combined = rtkCombineReducers(Object.fromEntries(slices.map((s) => [s.name, s.reducer])));
  type State = ReturnType<typeof combined>;
  const restored = createAction<State>(RESTORED);
  const root = (state: State | undefined, action: PayloadAction<unknown>): State =>
    restored.match(action) ? action.payload : combined(state, action);
  const store = configureStore({ reducer: root });
  return {
    snapshot: () => store.getState(),
    restore: (snapshot) => void store.dispatch(restored(snapshot)),
    toJSON: (snapshot) => JSON.stringify(snapshot),
    fromJSON: (text) => JSON.parse(text) as State,
    grow: () => void store.dispatch(grown()),
    sizes: () => names.map((n) => store.getState()[n]!.length),
    lastId: (slice) => store.getState()[names[slice]!]!.at(-1)!.id,
  };
}

/** Elf 2: getStoresSnapshot() (its registry snapshot), restore with `store.update(() => value)`. */
function elf(): Snapshotting<Record<string, { items: readonly Item[] }>> {
  enableElfProdMode();
  const stores: Store[] = names.map((name, i) => createElfStore({ name }, withProps<{ items: readonly Item[] }>({ items: itemsOf(i, ITEMS) })));
  return {
    snapshot: () => getStoresSnapshot<Record<string, { items: readonly Item[] }>>(),
    restore: (snapshot) => stores.forEach((store) => store.update(() => snapshot[store.name])),
    toJSON: (snapshot) => JSON.stringify(snapshot),
    fromJSON: (text) => JSON.parse(text) as Record<string, { items: readonly Item[] }>,
    grow: () =>
      stores.forEach((store, i) =>
        store.update(setProp('items', (items: readonly Item[]) => [...items, { id: i * 10_000 + items.length, text: 'grown' }])),
      ),
    sizes: () => stores.map((s) => (s.getValue() as { items: readonly Item[] }).items.length),
    lastId: (slice) => (stores[slice]!.getValue() as { items: readonly Item[] }).items.at(-1)!.id,
  };
}

/** Zustand 5: `getState()` is the snapshot; `setState(snapshot, true)` replaces the state. */
function zustand(): Snapshotting<Record<string, readonly Item[]>> {
  const store = createZustandStore<Record<string, readonly Item[]>>()(() =>
    Object.fromEntries(names.map((name, i) => [name, itemsOf(i, ITEMS)])),
  );
  return {
    snapshot: () => store.getState(),
    restore: (snapshot) => store.setState(snapshot, true),
    toJSON: (snapshot) => JSON.stringify(snapshot),
    fromJSON: (text) => JSON.parse(text) as Record<string, readonly Item[]>,
    grow: () =>
      store.setState((s) =>
        Object.fromEntries(names.map((n, i) => [n, [...s[n]!, { id: i * 10_000 + s[n]!.length, text: 'grown' }]])),
      ),
    sizes: () => names.map((n) => store.getState()[n]!.length),
    lastId: (slice) => store.getState()[names[slice]!]!.at(-1)!.id,
  };
}

const inMemory =
  <T>(make: () => Snapshotting<T>): Impl =>
  () =>
    measure({ ops: SNAPSHOT_RESTORES, first: true }, (ops, ready) => inMemoryRun(make, ops, ready));
const json =
  <T>(make: () => Snapshotting<T>): Impl =>
  () =>
    measure({ ops: JSON_ROUND_TRIPS, warmupOps: 10 }, (ops) => jsonRun(make, ops));

export const snapshotWorkload: Workload = {
  id: 'snapshot',
  number: '7m',
  title: 'Snapshot/restore in memory: 10 slices × 1,000 items, 10,000 snapshot + restore',
  unit: 'ns/snapshot+restore',
  notes: [
    'Snapshots: rxslice `session.snapshot()` / `session.restore(s)` (an `rxslice.session.restored` event through the pipeline); Redux/RTK/Zustand `getState()` and a restore action handled by the root reducer (`setState(s, true)` for Zustand); Elf `getStoresSnapshot()` and `store.update(() => value)` per store; raw RxJS the subjects\' values; the plain loop copies its array of 10 references.',
    '`rxslice (one array per slice)`: issue 36\'s shape, ten `state` slices each holding one item, the array of 1,000 objects (the peers\' state is one such array per key in both shapes).',
    '`rxslice (no clock read)`: the same session with a scheduler whose `now()` returns a cached `Date.now()` (bench/workloads/coarse-clock.ts): the prototype of the alternative to the two clock reads of each iteration (the snapshot\'s time and the restore envelope\'s).',
  ],
  contenders: {
    plain: inMemory(plain),
    rxslice: inMemory(rxslice(true)),
    'rxslice-noclock': inMemory(rxslice(true, coarseClock)),
    'rxslice-arrays': inMemory(rxsliceArrays),
    rxjs: inMemory(rxjs),
    redux: inMemory(redux),
    rtk: inMemory(rtk),
    elf: inMemory(elf),
    zustand: inMemory(zustand),
  },
};

export const snapshotJsonWorkload: Workload = {
  id: 'snapshot-json',
  number: '7j',
  title: 'Snapshot JSON round trip: 10 slices × 1,000 items, 100 × (snapshot, stringify, parse, restore)',
  unit: 'ns/round trip',
  columns: [{ key: 'jsonBytes', label: 'JSON chars', digits: 0 }],
  notes: [
    'rxslice reads JSON with `snapshotFromJSON(text, slices)`: size/depth limits, zod validation of every item with the slice schema; the items arrays frozen, the items deep-frozen only outside production (its `freeze` limit follows `NODE_ENV` as a session\'s `freeze` does; the bench runs with `NODE_ENV=production`). Peers `JSON.parse` and restore unchecked. `rxslice (no schema)` uses slices without a schema.',
    'Where a 10 × 1,000-item round trip without schemas goes (`PARTS=1` bench/hand/json-round-trip.ts, see bench/README.md; CPU ms on a loaded machine): stringify 1.55 (of frozen arrays it was 1.70: `toJSON` hands `JSON.stringify` spread copies, which it walks on its fast path), `JSON.parse` ~2.05, `snapshotFromJSON` ~2.35 in all before issue 36\'s json36 (the parse, one walk that checks the depth and deep-froze the 10,000 items, of which `Object.freeze` itself ~0.33, and the envelope\'s zod check, ~4 µs; without the items\' freeze in production 1.19 against 1.39 by hand), restore ~0.3 (of which ~0.12 is the identity check of each item against the one it replaces, which keeps an unchanged item\'s time; V8 reads frozen arrays\' elements on a slower path); a zod schema on every item ~0.5 ms more.',
  ],
  contenders: {
    plain: json(plain),
    rxslice: json(rxslice(true)),
    'rxslice-noschema': json(rxslice(false)),
    rxjs: json(rxjs),
    redux: json(redux),
    rtk: json(rtk),
    elf: json(elf),
    zustand: json(zustand),
  },
};
