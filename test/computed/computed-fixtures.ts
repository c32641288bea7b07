import { z } from 'zod';
import { append, defineEvent, defineSlice } from '../../src/index';

export const Bumped = defineEvent('count/bumped', z.object({ by: z.number() }));
export const Noted = defineEvent('notes/noted', z.object({ text: z.string() }));
export const Both = defineEvent('both/happened', z.object({ by: z.number(), text: z.string() }));

/** One number, the sum of every bump. */
export const Count = defineSlice('count', {
  policy: 'state',
  initial: [{ n: 0 }],
  reducers: ({ onLatest }) => [
    onLatest(Bumped, (c, e) => ({ n: (c?.n ?? 0) + e.payload.by })),
    onLatest(Both, (c, e) => ({ n: (c?.n ?? 0) + e.payload.by })),
  ],
});

/** A log of notes. */
export const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload)), on(Both, (_v, e) => append({ text: e.payload.text }))],
});

/** Counts calls of a function. */
export function counted<TArgs extends unknown[], TResult>(fn: (...args: TArgs) => TResult): ((...args: TArgs) => TResult) & { calls: number } {
  const wrapper = Object.assign((...args: TArgs) => {
    wrapper.calls++;
    return fn(...args);
  }, { calls: 0 });
  return wrapper;
}
