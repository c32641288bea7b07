/**
 * Workload 2 — fan-out: workload 1's store with 100 subscribers, ten on each slice,
 * 200,000 dispatches. A subscriber whose slice did not change must not be called: each
 * must be called exactly once per change of its slice (200,000 / 10 times).
 */
import { check, checkEqual, measure, nowMs, type Impl } from '../lib/measure';
import { SLICES, counterStores } from './counter-stores';
import type { Workload } from './workload';

/** Dispatches in the timed run. */
export const FAN_OUT_DISPATCHES = 200_000;
/** Subscribers in all (spread evenly over the slices). */
export const SUBSCRIBERS = 100;

const impl =
  (name: keyof typeof counterStores): Impl =>
  () =>
    measure({ ops: FAN_OUT_DISPATCHES, unit: SLICES, first: true }, async (ops, ready) => {
      const store = counterStores[name]('none');
      const calls = new Array<number>(SUBSCRIBERS).fill(0);
      const seen = new Array<number>(SUBSCRIBERS).fill(0);
      for (let j = 0; j < SUBSCRIBERS; j++) {
        store.subscribe(j % SLICES, (count) => {
          calls[j]!++;
          seen[j] = count;
        });
      }
      // Stores built on BehaviorSubject replay the current value on subscribe: not a change.
      calls.fill(0);
      await ready();
      const t0 = nowMs();
      for (let k = 0; k < ops; k++) store.increment(k % SLICES);
      const ms = nowMs() - t0;
      for (let j = 0; j < SUBSCRIBERS; j++) {
        checkEqual(calls[j], ops / SLICES, `calls of subscriber ${j}`);
        checkEqual(seen[j], ops / SLICES, `last count seen by subscriber ${j}`);
      }
      check(store.count(0) === ops / SLICES, 'final count of slice 0');
      return { ms, extra: { callsPerDispatch: calls.reduce((a, b) => a + b, 0) / ops }, store };
    });

export const fanOutWorkload: Workload = {
  id: 'fan-out',
  number: '2',
  title: 'Fan-out: workload 1 with 100 subscribers (10 per slice), 200,000 dispatches',
  unit: 'ns/dispatch',
  columns: [{ key: 'callsPerDispatch', label: 'subscriber calls / dispatch', digits: 2 }],
  notes: [
    'Redux and RTK have no per-slice subscription: each of the 100 subscribers is a `store.subscribe` listener that compares its selected slice (what react-redux `useSelector` does), so all 100 run on every dispatch and 10 call back.',
    'rxslice subscribers use `session.slice(S).latest$`; Elf `store.pipe(select(...))`; Zustand `subscribeWithSelector`; raw RxJS the BehaviorSubject. Replayed values on subscribe are not counted.',
  ],
  contenders: {
    plain: impl('plain'),
    rxslice: impl('rxslice'),
    rxjs: impl('rxjs'),
    redux: impl('redux'),
    rtk: impl('rtk'),
    elf: impl('elf'),
    'elf-routed': impl('elf-routed'),
    zustand: impl('zustand'),
  },
};
