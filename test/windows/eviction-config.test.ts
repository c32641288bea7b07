import { describe, expect, it } from 'vitest';
import { append, createSession, defineSlice, InvalidSliceDefinitionError } from '../../src/index';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { InvalidWindowError } from '../../src/windows/invalid-window-error';
import { SliceWindow } from '../../src/windows/slice-window';
import { call, CallFinished, CallsFinished, callsSlice, type Call } from './window-fixtures';

const idsOf = (calls: readonly Call[]): number[] => calls.map((c) => c.id);
const failed = (c: Call): boolean => c.id % 2 === 0;

describe('eviction policy chosen apart from the window', () => {
  it('SliceWindow.withEviction rebuilds count and predicate windows, and the bounded windows of a composite', () => {
    expect(SliceWindow.withEviction(SliceWindow.count(3), EvictionPolicy.lifo()).description).toBe('count(3, lifo)');
    expect(SliceWindow.withEviction(SliceWindow.predicate(failed, 2), EvictionPolicy.lifo()).description).toBe('predicate(failed, 2, lifo)');
    const mixed = SliceWindow.composite<Call>(SliceWindow.time({ maxAgeMs: 1000 }), SliceWindow.count(5));
    expect(SliceWindow.withEviction(mixed, EvictionPolicy.sampling({ seed: 3 })).description).toBe(
      'composite(time(1000ms), count(5, sampling(seed 3)))',
    );
  });

  it('SliceWindow.withEviction refuses windows that make no eviction choice, and sampling in a predicate window', () => {
    expect(() => SliceWindow.withEviction(SliceWindow.time({ maxAgeMs: 1000 }), EvictionPolicy.lifo())).toThrow(InvalidWindowError);
    expect(() => SliceWindow.withEviction(SliceWindow.composite(SliceWindow.time({ maxAgeMs: 5 })), EvictionPolicy.lifo())).toThrow(/evicts by its own rule/);
    expect(() => SliceWindow.withEviction(SliceWindow.predicate(failed, 2), EvictionPolicy.sampling({ seed: 1 }))).toThrow(InvalidWindowError);
  });

  it('defineSlice({ window, eviction }) evicts with the given policy', () => {
    const Calls = defineSlice<Call>('calls', {
      policy: 'log',
      window: SliceWindow.count(2),
      eviction: EvictionPolicy.lifo(),
      reducers: ({ on }) => [on(CallFinished, (_v, e) => append(e.payload))],
    });
    expect(Calls.window?.description).toBe('count(2, lifo)');
    const session = createSession({ slices: [Calls] });
    for (const id of [1, 2, 3, 4]) session.dispatch(CallFinished(call(id)));
    expect(idsOf(session.read(Calls))).toEqual([1, 2]);
  });

  it('defineSlice rejects an eviction policy without a window to choose from', () => {
    expect(() => defineSlice('a', { policy: 'log', eviction: EvictionPolicy.lifo() })).toThrow(InvalidSliceDefinitionError);
    expect(() => defineSlice('a', { policy: 'log', eviction: EvictionPolicy.lifo() })).toThrow(/needs a window/);
    expect(() => defineSlice('b', { policy: 'log', window: SliceWindow.time({ maxAgeMs: 10 }), eviction: EvictionPolicy.lifo() })).toThrow(/evicts by its own rule/);
  });

  it('configure({ eviction }) changes the current window\'s policy from the next change', () => {
    const Calls = callsSlice(SliceWindow.count(2));
    const session = createSession({ slices: [Calls] });
    session.dispatch(CallsFinished({ calls: [call(1), call(2), call(3)] }));
    expect(idsOf(session.read(Calls))).toEqual([2, 3]);
    session.slice(Calls).configure({ eviction: EvictionPolicy.lifo() });
    session.dispatch(CallFinished(call(4)));
    expect(idsOf(session.read(Calls))).toEqual([2, 3]);
    session.slice(Calls).configure({ window: SliceWindow.count(3), eviction: EvictionPolicy.fifo() });
    session.dispatch(CallsFinished({ calls: [call(5), call(6)] }));
    expect(idsOf(session.read(Calls))).toEqual([3, 5, 6]);
  });

  it('configure({ eviction }) without a usable window throws and changes nothing', () => {
    const Timed = callsSlice(SliceWindow.time({ maxAgeMs: 1_000_000 }));
    const session = createSession({ slices: [Timed] });
    expect(() => session.slice(Timed).configure({ eviction: EvictionPolicy.lifo() })).toThrow(InvalidWindowError);
    // The time window stays in force: nothing was evicted, and no count bound appeared.
    session.dispatch(CallsFinished({ calls: [call(1), call(2), call(3)] }));
    expect(idsOf(session.read(Timed))).toEqual([1, 2, 3]);
    expect(() => session.slice(Timed).configure({ window: null, eviction: EvictionPolicy.lifo() })).toThrow(/has no window/);
    const Plain = callsSlice(undefined);
    const other = createSession({ slices: [Plain] });
    expect(() => other.slice(Plain).configure({ eviction: EvictionPolicy.lifo() })).toThrow(/has no window/);
  });
});
