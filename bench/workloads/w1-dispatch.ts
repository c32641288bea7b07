/**
 * Workload 1 — dispatch: ten slices, one event type updating one slice chosen round-robin,
 * 1,000,000 dispatches, no subscribers. Reports ns per dispatch. Checks every slice's count.
 */
import { check, checkEqual, measure, nowMs, type Impl, type Ready, type RunResult } from '../lib/measure';
import { SLICES, counterStores, type CounterMiddleware, type CounterStore } from './counter-stores';
import type { Workload } from './workload';

/** Dispatches in the timed run. */
export const DISPATCHES = 1_000_000;

/** Runs `ops` round-robin increments on a fresh store and checks every count. Shared with workload 5. */
export async function dispatchRun(make: () => CounterStore, ops: number, ready: Ready): Promise<RunResult> {
  check(ops % SLICES === 0, `ops must be a multiple of ${SLICES}`);
  const store = make();
  await ready();
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) store.increment(k % SLICES);
  const ms = nowMs() - t0;
  for (let i = 0; i < SLICES; i++) checkEqual(store.count(i), ops / SLICES, `count of slice ${i}`);
  return { ms, store };
}

const impl =
  (name: keyof typeof counterStores, middleware: CounterMiddleware = 'none'): Impl =>
  () =>
    measure({ ops: DISPATCHES, unit: SLICES, first: true }, (ops, ready) => dispatchRun(() => counterStores[name](middleware), ops, ready));

export const dispatchWorkload: Workload = {
  id: 'dispatch',
  number: '1',
  title: 'Dispatch: 10 slices, 1,000,000 dispatches round-robin, no subscribers',
  unit: 'ns/dispatch',
  notes: [
    'rxslice, raw RxJS, Redux, RTK and the plain loop route the one event type to all 10 slice reducers (9 return their state unchanged): rxslice `onLatest`, RTK `createSlice` + `extraReducers` with immer, Redux `combineReducers`, raw RxJS a subscription per BehaviorSubject.',
    'Elf and Zustand have no events: their docs call an update function (an Elf repository function with `setProp`, a Zustand action with `set`) that touches only the store or key it changes, so they skip the routing the others do.',
    '`rxslice (no clock read)` is the prototype of the alternative to the clock read per envelope: the same session with a scheduler whose `now()` returns a cached `Date.now()` refreshed by a 1 ms timer (bench/workloads/coarse-clock.ts).',
    '`Elf 2 (10-slice routing)` gives Elf the same routing: a `dispatch(event)` that calls `store.update((s) => reducer(s, event))` on all ten stores with the plain loop\'s reducers (Elf emits only for the store whose state changed).',
  ],
  contenders: {
    plain: impl('plain'),
    rxslice: impl('rxslice'),
    'rxslice-noclock': impl('rxslice-noclock'),
    rxjs: impl('rxjs'),
    redux: impl('redux'),
    rtk: impl('rtk'),
    elf: impl('elf'),
    'elf-routed': impl('elf-routed'),
    zustand: impl('zustand'),
  },
};
