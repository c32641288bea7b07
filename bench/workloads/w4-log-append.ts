/**
 * Workload 4 — log append: 200,000 appends of `{ id, text }` to a log slice; after each
 * append the harness reads the latest item and the size from the store's immutable state.
 * Unbounded (4u) and with a count window of 1,000 (4w). Reports the total time in ms and
 * the time of the last 10 % of appends against the first 10 % (1 = flat, i.e. O(1) appends).
 *
 * Peers keep the log as an immutable array and copy it on each append (their docs' way:
 * spread, or immer's `push`), which is quadratic; a run that passes the deadline
 * (`BENCH_LOG_DEADLINE_MS`, default 5 s) stops and reports how far it got. The plain loop
 * is the floor: a mutable array (`push`, and `shift` past the window), not immutable.
 */
import { BehaviorSubject, Subject } from 'rxjs';
import { combineReducers, legacy_createStore as createReduxStore } from 'redux';
import { configureStore, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { createStore as createElfStore, enableElfProdMode, setProp, withProps } from '@ngneat/elf';
import { createStore as createZustandStore } from 'zustand/vanilla';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, append } from '../../src/index';
import { SliceWindow } from '../../src/windows/slice-window';
import { checkEqual, DeadlineExceededError, measure, nowMs, type Impl, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/** Appends in the timed run. */
export const APPENDS = 200_000;
/** The count window of variant 4w. */
export const WINDOW = 1_000;
/** A run of a log workload stops once it has taken this long (ms). */
export const LOG_DEADLINE_MS = Number(process.env['BENCH_LOG_DEADLINE_MS'] ?? 5_000);

/** One log item. */
interface Item {
  readonly id: number;
  readonly text: string;
}

/** What each contender's log exposes: append one item, and read latest + size from the immutable state. */
interface Log {
  append(item: Item): void;
  /** The latest item's id and the size, read from the store's current immutable items. */
  read(): { latestId: number; size: number };
  /** The oldest item's id. */
  firstId(): number;
}

export { DeadlineExceededError };

function logRun(make: (window: number | undefined) => Log, window: number | undefined, ops: number): RunResult {
  const log = make(window);
  const tenth = Math.floor(ops / 10);
  let sumIds = 0;
  let sumSizes = 0;
  let tFirst = 0;
  let tLastStart = 0;
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) {
    if (k === tenth) tFirst = nowMs();
    if (k === ops - tenth) tLastStart = nowMs();
    log.append({ id: k, text: 'appended' });
    const { latestId, size } = log.read();
    sumIds += latestId;
    sumSizes += size;
    if ((k & 1023) === 1023 && nowMs() - t0 > LOG_DEADLINE_MS) throw new DeadlineExceededError(k + 1, ops, nowMs() - t0);
  }
  const t1 = nowMs();
  const cap = window ?? Infinity;
  let expectedSizes = 0;
  for (let k = 0; k < ops; k++) expectedSizes += Math.min(k + 1, cap);
  checkEqual(sumIds, (ops * (ops - 1)) / 2, 'sum of the latest ids read after each append');
  checkEqual(sumSizes, expectedSizes, 'sum of the sizes read after each append');
  checkEqual(log.read().size, Math.min(ops, cap), 'final size');
  checkEqual(log.firstId(), Math.max(0, ops - cap), 'oldest id kept');
  const first10Ms = tFirst - t0;
  const last10Ms = t1 - tLastStart;
  return { ms: t1 - t0, extra: { first10Ms, last10Ms, lastToFirst: last10Ms / first10Ms }, store: log };
}

function plain(window: number | undefined): Log {
  const items: Item[] = [];
  return {
    append(item) {
      items.push(item);
      if (window !== undefined && items.length > window) items.shift();
    },
    read: () => ({ latestId: items[items.length - 1]!.id, size: items.length }),
    firstId: () => items[0]!.id,
  };
}

const Appended = defineEvent('log/appended', z.object({ id: z.number(), text: z.string() }));

function rxslice(window: number | undefined): Log {
  const Messages = defineSlice('log', {
    policy: 'log',
    schema: z.object({ id: z.number(), text: z.string() }),
    reducers: ({ on }) => [on(Appended, (_view, e) => append(e.payload))],
    ...(window !== undefined ? { window: SliceWindow.count<Item>(window) } : {}),
  });
  const session = createSession({ slices: [Messages] });
  const handle = session.slice(Messages);
  return {
    append: (item) => void session.dispatch(Appended(item)),
    read() {
      const items = handle.all();
      return { latestId: items[items.length - 1]!.id, size: items.length };
    },
    firstId: () => handle.all()[0]!.id,
  };
}

const appendTo = (items: readonly Item[], item: Item, window: number | undefined): readonly Item[] =>
  window !== undefined && items.length >= window ? [...items.slice(items.length - window + 1), item] : [...items, item];

function rxjs(window: number | undefined): Log {
  const actions$ = new Subject<{ type: string; payload: Item }>();
  const log$ = new BehaviorSubject<readonly Item[]>([]);
  actions$.subscribe((action) => log$.next(appendTo(log$.value, action.payload, window)));
  return {
    append: (item) => actions$.next({ type: Appended.type, payload: item }),
    read() {
      const items = log$.value;
      return { latestId: items[items.length - 1]!.id, size: items.length };
    },
    firstId: () => log$.value[0]!.id,
  };
}

function redux(window: number | undefined): Log {
  const log = (state: readonly Item[] = [], action: { type: string; payload?: Item }): readonly Item[] =>
    action.type === Appended.type ? appendTo(state, action.payload!, window) : state;
  const store = createReduxStore(combineReducers({ log }));
  return {
    append: (item) => void store.dispatch({ type: Appended.type, payload: item }),
    read() {
      const items = store.getState().log;
      return { latestId: items[items.length - 1]!.id, size: items.length };
    },
    firstId: () => store.getState().log[0]!.id,
  };
}

function rtk(window: number | undefined): Log {
  const slice = createSlice({
    name: 'log',
    initialState: [] as Item[],
    reducers: {
      appended(state, action: PayloadAction<Item>) {
        state.push(action.payload);
        if (window !== undefined && state.length > window) state.splice(0, state.length - window);
      },
    },
  });
  const store = configureStore({ reducer: { log: slice.reducer } });
  return {
    append: (item) => void store.dispatch(slice.actions.appended(item)),
    read() {
      const items = store.getState().log;
      return { latestId: items[items.length - 1]!.id, size: items.length };
    },
    firstId: () => store.getState().log[0]!.id,
  };
}

function elf(window: number | undefined): Log {
  enableElfProdMode();
  const store = createElfStore({ name: 'log' }, withProps<{ log: readonly Item[] }>({ log: [] }));
  return {
    append: (item) => store.update(setProp('log', (items) => appendTo(items, item, window))),
    read() {
      const items = store.getValue().log;
      return { latestId: items[items.length - 1]!.id, size: items.length };
    },
    firstId: () => store.getValue().log[0]!.id,
  };
}

function zustand(window: number | undefined): Log {
  interface State {
    readonly log: readonly Item[];
    append(item: Item): void;
  }
  const store = createZustandStore<State>()((set) => ({
    log: [],
    append: (item) => set((state) => ({ log: appendTo(state.log, item, window) })),
  }));
  return {
    append: (item) => store.getState().append(item),
    read() {
      const items = store.getState().log;
      return { latestId: items[items.length - 1]!.id, size: items.length };
    },
    firstId: () => store.getState().log[0]!.id,
  };
}

const impl =
  (make: (window: number | undefined) => Log, window: number | undefined): Impl =>
  async () => {
    const m = await measure({ ops: APPENDS, budgetMs: Infinity, timedRuns: 1, warmupOps: APPENDS / 10 }, (ops) => logRun(make, window, ops));
    // Headline: total ms of the 200,000 appends.
    return { value: (m.value * APPENDS) / 1e6, ...(m.extra ? { extra: m.extra } : {}) };
  };

const columns = [
  { key: 'first10Ms', label: 'first 10% (ms)', digits: 1 },
  { key: 'last10Ms', label: 'last 10% (ms)', digits: 1 },
  { key: 'lastToFirst', label: 'last / first 10%', digits: 2 },
];
const notes = [
  'Reads: rxslice `handle.all()` (an immutable array view) then `items[items.length - 1]` and `items.length`; peers read the same from their state arrays; the plain loop reads its mutable array.',
  'Peers copy the array on each append (spread; RTK: immer `push`/`splice` on a draft), which is O(size) per append. Elf uses `withProps` holding an array (`withEntities` would also copy an id array and an entity map per append).',
  'rxslice\'s window is `SliceWindow.count(1000)` (FIFO eviction).',
];

const contenders = (window: number | undefined) => ({
  plain: impl(plain, window),
  rxslice: impl(rxslice, window),
  rxjs: impl(rxjs, window),
  redux: impl(redux, window),
  rtk: impl(rtk, window),
  elf: impl(elf, window),
  zustand: impl(zustand, window),
});

export const logUnboundedWorkload: Workload = {
  id: 'log-unbounded',
  number: '4u',
  title: 'Log append, unbounded: 200,000 appends, each followed by an immutable read of latest + size',
  unit: 'ms total',
  columns,
  notes,
  contenders: contenders(undefined),
};

export const logWindowedWorkload: Workload = {
  id: 'log-window',
  number: '4w',
  title: 'Log append, count window 1,000: 200,000 appends, each followed by an immutable read of latest + size',
  unit: 'ms total',
  columns,
  notes,
  contenders: contenders(WINDOW),
};
