import { z } from 'zod';
import { append, defineEvent, defineSlice, replace, SliceWindow, type SliceDef } from '../../../src/index';

/** Event `n` of the crash workload: dispatched as the session's `seq` n. */
export const Tick = defineEvent('crash/tick', z.object({ n: z.number().int() }));

/** A windowed log (front evictions), a state slice (replace) and a log that is reset every 37 events. */
export const Recent = defineSlice('recent', {
  policy: 'log',
  schema: z.number(),
  window: SliceWindow.count(20),
  reducers: ({ on }) => [on(Tick, (_v, e) => append(e.payload.n))],
});
export const Last = defineSlice('last', { policy: 'state', schema: z.number(), initial: [0], reducers: ({ onLatest }) => [onLatest(Tick, (_c, e) => e.payload.n)] });
export const Evens = defineSlice('evens', {
  policy: 'log',
  schema: z.object({ n: z.number(), text: z.string() }),
  reducers: ({ on }) => [
    on(Tick, (_v, e) => (e.payload.n % 37 === 0 ? replace([]) : e.payload.n % 2 === 0 ? append({ n: e.payload.n, text: `event ${e.payload.n} ${'x'.repeat(e.payload.n % 50)}` }) : replace(_v.all()))),
  ],
});
export const CRASH_SLICES: readonly SliceDef<string, any>[] = [Recent, Last, Evens];
