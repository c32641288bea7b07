/**
 * Workload 23r — reading a 10,000-item log (issue 23, stable references): the cost of reading
 * every item of a log by index (`log[i]` in a `for` loop) and by iteration (`for (const item of
 * log)`), per item read. Contenders: a plain frozen array of the same frozen items (the floor) and
 * rxslice, whose log slice was fed by 10,000 dispatches and is read through `session.slice(Log).all()`
 * (the read-only view of the shared append buffer readers get, `src/internal/array-view.ts`).
 * Target: ≤ 3× the plain array, by index and by iteration. A benchmark row, not a timed test.
 */
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice } from '../../src/index';
import { isArrayView } from '../../src/internal/array-view';
import { checkEqual, measure, nowMs, type Impl, type Ready, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/** Items in the log. */
export const LOG_ITEMS = 10_000;
/** Item reads per pass: the whole log by index, then the whole log by iteration. */
const PASS = 2 * LOG_ITEMS;

interface Entry {
  readonly id: number;
  readonly text: string;
}

const Entry = z.object({ id: z.number(), text: z.string() });
const Logged = defineEvent('log-read/logged', Entry);
const Log = defineSlice('log', { policy: 'log', schema: Entry, reducers: ({ on }) => [on(Logged, (_v, e) => append(e.payload))] });

/** Sum of the ids of one full read (0 + 1 + … + 9,999). */
const EXPECTED_SUM = (LOG_ITEMS * (LOG_ITEMS - 1)) / 2;

function byIndex(log: readonly Entry[]): number {
  let sum = 0;
  for (let i = 0; i < log.length; i++) sum += (log[i] as Entry).id;
  return sum;
}

function byIteration(log: readonly Entry[]): number {
  let sum = 0;
  for (const item of log) sum += item.id;
  return sum;
}

/**
 * One run: builds the log (untimed), then `ops / PASS` passes, each reading every item by index
 * and then by iteration; the two kinds are timed apart (`indexNs`, `iterNs`: ns per item read).
 */
const logRead =
  (build: () => { log: readonly Entry[]; store: unknown }) =>
  async (ops: number, ready: Ready): Promise<RunResult> => {
    const { log, store } = build();
    checkEqual(log.length, LOG_ITEMS, 'items in the log');
    await ready();
    const passes = ops / PASS;
    let indexMs = 0;
    let iterMs = 0;
    let indexSum = 0;
    let iterSum = 0;
    for (let p = 0; p < passes; p++) {
      const t0 = nowMs();
      indexSum += byIndex(log);
      const t1 = nowMs();
      iterSum += byIteration(log);
      const t2 = nowMs();
      indexMs += t1 - t0;
      iterMs += t2 - t1;
    }
    checkEqual(indexSum, EXPECTED_SUM * passes, 'sum of ids read by index');
    checkEqual(iterSum, EXPECTED_SUM * passes, 'sum of ids read by iteration');
    const perItem = (ms: number): number => (ms * 1e6) / (passes * LOG_ITEMS);
    return { ms: indexMs + iterMs, extra: { indexNs: perItem(indexMs), iterNs: perItem(iterMs), view: isArrayView(log) ? 1 : 0 }, store };
  };

const impl =
  (build: () => { log: readonly Entry[]; store: unknown }): Impl =>
  () =>
    measure({ ops: 100 * PASS, unit: PASS, warmupOps: 5 * PASS }, logRead(build));

export const logReadWorkload: Workload = {
  id: 'log-read',
  number: '23r',
  title: 'Reading a 10,000-item log by index and by iteration (ns per item read)',
  unit: 'ns/item',
  contenders: {
    plain: impl(() => {
      const items: Entry[] = [];
      for (let i = 0; i < LOG_ITEMS; i++) items.push(Object.freeze({ id: i, text: `item ${i}` }));
      const log = Object.freeze(items);
      return { log, store: log };
    }),
    rxslice: impl(() => {
      const session = createSession({ slices: [Log] });
      for (let i = 0; i < LOG_ITEMS; i++) session.dispatch(Logged({ id: i, text: `item ${i}` }));
      return { log: session.slice(Log).all() as readonly Entry[], store: session };
    }),
  },
  columns: [
    { key: 'indexNs', label: 'by index, ns/item', digits: 2 },
    { key: 'iterNs', label: 'by iteration, ns/item', digits: 2 },
    { key: 'view', label: 'read-only view (1) or array (0)', digits: 0 },
  ],
  notes: [
    'plain: `Object.freeze` of an array of 10,000 frozen `{ id, text }` items. rxslice: a log slice fed by 10,000 dispatches, read through `session.slice(Log).all()` (a read-only view over the shared append buffer when the last column says 1).',
    'Each pass reads every item by index (`for (let i = 0; i < log.length; i++) log[i]`) and then by `for…of`, summing the ids (checked); the headline is both together per item read.',
  ],
};
