/**
 * Workload 16m — memory per item of a long log (issue 16's memory goal): 1,000,000 frozen
 * `{ id, text }` items held by a plain array (the floor) and by an rxslice log slice (one
 * dispatch per item, no window). Reports the heap growth per item after a full GC (bytes), the
 * texts excluded (made before the measurement and shared by both). Target: rxslice ≤ 1.2× the
 * plain array.
 */
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice } from '../../src/index';
import { check, checkEqual, type Impl } from '../lib/measure';
import type { Workload } from './workload';

/** Items held in each measurement. */
export const MEMORY_ITEMS = 1_000_000;

const Item = z.object({ id: z.number(), text: z.string() });
const Added = defineEvent('items/added', Item);
const Items = defineSlice('items', { policy: 'log', schema: Item, reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload))] });

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc;
  check(collect !== undefined, 'the worker runs without --expose-gc: no heap figure');
  collect();
  collect();
};

/** Heap bytes per item that `hold` keeps alive, measured after full collections. */
const perItem =
  (hold: (texts: readonly string[]) => () => number): Impl =>
  () => {
    const texts = Array.from({ length: MEMORY_ITEMS }, (_, i) => `item ${i}`);
    gc();
    const before = process.memoryUsage().heapUsed;
    const size = hold(texts);
    gc();
    const after = process.memoryUsage().heapUsed;
    // Both still alive here: the texts and what holds the items.
    checkEqual(size(), MEMORY_ITEMS, 'items held');
    checkEqual(texts.length, MEMORY_ITEMS, 'texts');
    return { value: (after - before) / MEMORY_ITEMS, extra: { ops: MEMORY_ITEMS } };
  };

export const memoryWorkload: Workload = {
  id: 'memory',
  number: '16m',
  title: 'Memory: bytes per item of a 1,000,000-item log',
  unit: 'bytes/item',
  maxRounds: 1,
  notes: [
    'plain loop: an array of `Object.freeze({ id, text })`. rxslice: a log slice fed by one dispatch per item (production mode: items are not frozen by rxslice there; the plain array freezes its own). Heap growth after two full GCs, texts made beforehand and excluded.',
  ],
  contenders: {
    plain: perItem((texts) => {
      const items: unknown[] = [];
      for (let i = 0; i < MEMORY_ITEMS; i++) items.push(Object.freeze({ id: i, text: texts[i] }));
      return () => items.length;
    }),
    rxslice: perItem((texts) => {
      const session = createSession({ slices: [Items] });
      for (let i = 0; i < MEMORY_ITEMS; i++) session.dispatch(Added({ id: i, text: texts[i] as string }));
      return () => session.slice(Items).size;
    }),
  },
};
