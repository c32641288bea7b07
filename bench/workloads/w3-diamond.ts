/**
 * Workload 3 — diamond: slice S holds `{ value }`; A = 2·value and B = value + 1 are derived
 * from S, and C = A + B from A and B. 100,000 updates of S (value + 1 each), one subscriber
 * on C. Reports ns per update, how many times C's subscriber fires per update (1 = glitch-free)
 * and how many of those calls saw an inconsistent C (one that matches no committed S: the
 * glitch of `combineLatest`, which sees the new A with the old B first).
 */
import { BehaviorSubject, Subject, combineLatest, distinctUntilChanged, map, type SchedulerLike } from 'rxjs';
import { combineReducers, legacy_createStore as createReduxStore } from 'redux';
import { createSelector } from 'reselect';
import { configureStore, createSelector as createRtkSelector, createSlice } from '@reduxjs/toolkit';
import { createStore as createElfStore, enableElfProdMode, select, setProp, withProps } from '@ngneat/elf';
import { createStore as createZustandStore } from 'zustand/vanilla';
import { subscribeWithSelector } from 'zustand/middleware';
import { createSession, defineEvent, defineSlice } from '../../src/index';
import { computed } from '../../src/computed/computed';
import { defineComputed } from '../../src/computed/define-computed';
import { check, checkEqual, measure, nowMs, type Impl, type Ready, type RunResult } from '../lib/measure';
import type { Workload } from './workload';
import { coarseClock } from './coarse-clock';

/** Updates of S in the timed run. */
export const UPDATES = 100_000;

/** S's state. */
export interface Source {
  readonly value: number;
}
const f = (s: Source): number => s.value * 2;
const g = (s: Source): number => s.value + 1;
const h = (a: number, b: number): number => a + b;
const INCREMENTED = 'source/incremented';

/** What each contender's diamond exposes to the harness. */
export interface Diamond {
  /** Updates S once. */
  update(): void;
  /** Subscribes to C; returns nothing (the harness counts calls). */
  subscribeC(listener: (c: number) => void): void;
  /** S's current value. */
  source(): number;
}

/** Runs `ops` updates on a fresh diamond, counts C's calls and checks them against `expectedFires`. */
export async function diamondRun(make: () => Diamond, ops: number, expectedFires: number, ready: Ready): Promise<RunResult> {
  const diamond = make();
  let fires = 0;
  let inconsistent = 0;
  let lastC = Number.NaN;
  diamond.subscribeC((c) => {
    fires++;
    lastC = c;
    // A consistent C is 3·value + 1 for the value S holds right now.
    if (c !== 3 * diamond.source() + 1) inconsistent++;
  });
  fires = 0;
  inconsistent = 0;
  await ready();
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) diamond.update();
  const ms = nowMs() - t0;
  checkEqual(diamond.source(), ops, 'final value of S');
  checkEqual(lastC, 3 * ops + 1, 'last C seen by the subscriber');
  checkEqual(fires, expectedFires * ops, `calls of C's subscriber (expected ${expectedFires} per update)`);
  check(expectedFires > 1 || inconsistent === 0, `${inconsistent} inconsistent values of C`);
  return { ms, extra: { firesPerUpdate: fires / ops, inconsistentPerUpdate: inconsistent / ops }, store: diamond };
}

const impl =
  (make: () => Diamond, expectedFires = 1): Impl =>
  () =>
    measure({ ops: UPDATES, first: true }, (ops, ready) => diamondRun(make, ops, expectedFires, ready));

function plain(): Diamond {
  let s: Source = { value: 0 };
  const listeners: ((c: number) => void)[] = [];
  let lastC = h(f(s), g(s));
  const reducer = (state: Source, event: { type: string }): Source =>
    event.type === INCREMENTED ? { value: state.value + 1 } : state;
  return {
    update() {
      const next = reducer(s, { type: INCREMENTED });
      if (next === s) return;
      s = next;
      const c = h(f(s), g(s));
      if (c !== lastC) {
        lastC = c;
        for (const listener of listeners) listener(c);
      }
    },
    subscribeC: (listener) => void listeners.push(listener),
    source: () => s.value,
  };
}

/** rxslice's S and the computed slice C (both also used by bench/hand/hot-path.ts). */
const Incremented = defineEvent(INCREMENTED);
export const SourceSlice = defineSlice('source', {
  policy: 'state',
  initial: [{ value: 0 }] as Source[],
  reducers: ({ onLatest }) => [onLatest(Incremented, (s) => ({ value: (s?.value ?? 0) + 1 }))],
});
const A = defineComputed('a', [SourceSlice], (items) => f(items[items.length - 1]!));
const B = defineComputed('b', [SourceSlice], (items) => g(items[items.length - 1]!));
export const C = defineComputed('c', [A, B], h);

/** rxslice: a state slice S, computed slices A and B from S, C from A and B; subscriber on `value$`. */
export function rxslice(scheduler?: SchedulerLike): Diamond {
  const session = createSession({ slices: [SourceSlice], ...(scheduler === undefined ? {} : { scheduler }) });
  const s = session.slice(SourceSlice);
  const c = computed(session, C);
  return {
    update: () => void session.dispatch(Incremented()),
    subscribeC: (listener) => void c.value$.subscribe(listener),
    source: () => s.latest()!.value,
  };
}

/** Raw RxJS: a BehaviorSubject for S, `map` for A and B, `combineLatest` for C (glitches). */
function rxjs(): Diamond {
  const actions$ = new Subject<{ type: string }>();
  const s$ = new BehaviorSubject<Source>({ value: 0 });
  actions$.subscribe((action) => {
    if (action.type === INCREMENTED) s$.next({ value: s$.value.value + 1 });
  });
  const a$ = s$.pipe(map(f), distinctUntilChanged());
  const b$ = s$.pipe(map(g), distinctUntilChanged());
  const c$ = combineLatest([a$, b$]).pipe(map(([a, b]) => h(a, b)));
  return {
    update: () => actions$.next({ type: INCREMENTED }),
    subscribeC: (listener) => void c$.subscribe(listener),
    source: () => s$.value.value,
  };
}

/** Redux 5 + reselect: memoized selectors, a store listener comparing C (as useSelector does). */
function redux(): Diamond {
  const source = (state: Source = { value: 0 }, action: { type: string }): Source =>
    action.type === INCREMENTED ? { value: state.value + 1 } : state;
  const store = createReduxStore(combineReducers({ source }));
  type State = ReturnType<typeof store.getState>;
  const selectS = (state: State) => state.source;
  const selectA = createSelector([selectS], f);
  const selectB = createSelector([selectS], g);
  const selectC = createSelector([selectA, selectB], h);
  return {
    update: () => void store.dispatch({ type: INCREMENTED }),
    subscribeC: (listener) => {
      let last = selectC(store.getState());
      store.subscribe(() => {
        const c = selectC(store.getState());
        if (c !== last) {
          last = c;
          listener(c);
        }
      });
    },
    source: () => store.getState().source.value,
  };
}

/** Redux Toolkit 2: createSlice, configureStore, RTK's createSelector. */
function rtk(): Diamond {
  const slice = createSlice({
    name: 'source',
    initialState: { value: 0 } as Source,
    reducers: {
      incremented: (state) => {
        state.value++;
      },
    },
  });
  const store = configureStore({ reducer: { source: slice.reducer } });
  type State = ReturnType<typeof store.getState>;
  const selectS = (state: State) => state.source;
  const selectA = createRtkSelector([selectS], f);
  const selectB = createRtkSelector([selectS], g);
  const selectC = createRtkSelector([selectA, selectB], h);
  return {
    update: () => void store.dispatch(slice.actions.incremented()),
    subscribeC: (listener) => {
      let last = selectC(store.getState());
      store.subscribe(() => {
        const c = selectC(store.getState());
        if (c !== last) {
          last = c;
          listener(c);
        }
      });
    },
    source: () => store.getState().source.value,
  };
}

/** Elf 2: select() for A and B, `store.combine` (one emission per store update) for C. */
function elf(): Diamond {
  enableElfProdMode();
  const store = createElfStore({ name: 'source' }, withProps<Source>({ value: 0 }));
  const a$ = store.pipe(select(f));
  const b$ = store.pipe(select(g));
  const c$ = store.combine({ a: a$, b: b$ }).pipe(map(({ a, b }) => h(a, b)));
  return {
    update: () => store.update(setProp('value', (v) => v + 1)),
    subscribeC: (listener) => void c$.subscribe(listener),
    source: () => store.getValue().value,
  };
}

/** Zustand 5: a selector computing C, subscribeWithSelector (called when C changes). */
export function zustand(): Diamond {
  interface State {
    readonly source: Source;
    increment(): void;
  }
  const store = createZustandStore<State>()(
    subscribeWithSelector((set) => ({
      source: { value: 0 },
      increment: () => set((state) => ({ source: { value: state.source.value + 1 } })),
    })),
  );
  const selectC = (state: State): number => h(f(state.source), g(state.source));
  return {
    update: () => store.getState().increment(),
    subscribeC: (listener) => void store.subscribe(selectC, listener),
    source: () => store.getState().source.value,
  };
}

/**
 * Zustand 5 with the three derived values as separately subscribable parts of the state: the
 * action recomputes A = f(S), B = g(S) and C = h(A, B) into the state it sets, so a subscriber
 * can select any of them (`store.subscribe((s) => s.a, ...)`); C's subscriber selects `s.c`.
 * Zustand's docs keep derived state this way when it must be shared rather than re-selected.
 */
function zustandDerived(): Diamond {
  interface State {
    readonly source: Source;
    readonly a: number;
    readonly b: number;
    readonly c: number;
    increment(): void;
  }
  const derive = (source: Source): Pick<State, 'source' | 'a' | 'b' | 'c'> => {
    const a = f(source);
    const b = g(source);
    return { source, a, b, c: h(a, b) };
  };
  const store = createZustandStore<State>()(
    subscribeWithSelector((set) => ({
      ...derive({ value: 0 }),
      increment: () => set((state) => derive({ value: state.source.value + 1 })),
    })),
  );
  return {
    update: () => store.getState().increment(),
    subscribeC: (listener) => void store.subscribe((state) => state.c, listener),
    source: () => store.getState().source.value,
  };
}

export const diamondWorkload: Workload = {
  id: 'diamond',
  number: '3',
  title: 'Diamond: C = f(A, B), A and B from slice S, 100,000 updates of S',
  unit: 'ns/update',
  columns: [
    { key: 'firesPerUpdate', label: "C's calls / update", digits: 2 },
    { key: 'inconsistentPerUpdate', label: 'inconsistent C / update', digits: 2 },
  ],
  notes: [
    'rxslice: `defineComputed` for A, B (from S) and C (from A and B), `computed(session, C).value$` subscribed. `rxslice (no clock read)`: the same with a scheduler whose `now()` returns a cached `Date.now()` (bench/workloads/coarse-clock.ts), the prototype of the alternative to one clock read per envelope.',
    'Raw RxJS uses `combineLatest([a$, b$])`: it fires twice per update and the first value mixes the new A with the old B (the glitch); the check expects exactly that.',
    'Redux and RTK compute C with reselect `createSelector` in a store listener; Elf with `store.combine({ a: a$, b: b$ })`, which emits once per store update; Zustand with one selector computing C from S on `subscribeWithSelector` (A and B are not values anyone can subscribe to).',
    '`Zustand 5 (A, B, C in the state)` keeps the three derived values separately subscribable, as rxslice\'s computed slices are: the action recomputes A, B and C into the state it sets, and C\'s subscriber selects `s.c`.',
  ],
  contenders: {
    plain: impl(plain),
    rxslice: impl(() => rxslice()),
    'rxslice-noclock': impl(() => rxslice(coarseClock())),
    rxjs: impl(rxjs, 2),
    redux: impl(redux),
    rtk: impl(rtk),
    elf: impl(elf),
    zustand: impl(zustand),
    'zustand-derived': impl(zustandDerived),
  },
};
