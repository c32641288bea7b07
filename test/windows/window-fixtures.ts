import { z } from 'zod';
import { append, defineEvent, defineSlice, extend, MemoryStorage, type SliceDef, type SliceView, type SliceWindowPolicy, type WindowContext } from '../../src/index';

export const Call = z.object({ id: z.number().int(), failed: z.boolean(), priority: z.number() });
export type Call = z.infer<typeof Call>;

export const CallFinished = defineEvent('calls/finished', Call);
export const CallsFinished = defineEvent('calls/batchFinished', z.object({ calls: z.array(Call) }));
export const CallsBroken = defineEvent('calls/broken');

/** A log of calls with the given window; `calls/broken` appends a call and then throws in a second reducer. */
export function callsSlice(window: SliceWindowPolicy<Call> | undefined, name = 'calls'): SliceDef<string, Call> {
  return defineSlice(name, {
    policy: 'log',
    schema: Call,
    ...(window !== undefined ? { window } : {}),
    reducers: ({ on }) => [
      on(CallFinished, (_v, e) => append(e.payload)),
      on(CallsFinished, (_v, e) => extend(e.payload.calls)),
      on(CallsBroken, () => append(call(-1))),
      on(CallsBroken, () => {
        throw new Error('broken after eviction');
      }),
    ],
  });
}

export const call = (id: number, failed = false, priority = 0): Call => ({ id, failed, priority });

/** A committed view over `items` and a context whose item `i` entered at `times[i]` (default 0). */
export function viewOf<T>(items: readonly T[]): SliceView<T> {
  return new MemoryStorage(items).view();
}
export function contextOf(partial: Partial<Omit<WindowContext, 'timeAt'>> & { times?: readonly number[] } = {}): WindowContext {
  const times = partial.times ?? [];
  return { now: partial.now ?? 0, seq: partial.seq ?? 1, appended: partial.appended ?? 0, timeAt: (i) => times[i] ?? 0 };
}
