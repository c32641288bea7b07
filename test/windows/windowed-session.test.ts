import { describe, expect, it } from 'vitest';
import { createSession, MemoryStorage, ReducerError, type EvictedItems, type SliceStorage } from '../../src/index';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { SliceWindow } from '../../src/windows/slice-window';
import { call, CallFinished, CallsBroken, CallsFinished, callsSlice, type Call } from './window-fixtures';

const idsOf = (calls: readonly Call[]): number[] => calls.map((c) => c.id);

describe('windows in a session', () => {
  it('evicts inside the commit that appended: one version, one emission, then evicted$', () => {
    const Calls = callsSlice(SliceWindow.count(2));
    const session = createSession({ slices: [Calls] });
    const order: string[] = [];
    session.slice(Calls).all$.subscribe((calls) => order.push(`all:${idsOf(calls).join(',')}`));
    session.evicted$.subscribe((e) => order.push(`evicted:${e.slice}@${e.seq}:${idsOf(e.items as Call[]).join(',')}`));
    session.committed$.subscribe((c) => order.push(`committed:${c.seq}`));
    session.dispatch(CallsFinished({ calls: [call(1), call(2), call(3)] }));
    const v = session.slice(Calls).version;
    session.dispatch(CallFinished(call(4)));
    expect(session.slice(Calls).version).toBe(v + 1);
    expect(order).toEqual(['all:', 'all:2,3', 'evicted:calls@1:1', 'committed:1', 'all:3,4', 'evicted:calls@2:2', 'committed:2']);
  });

  it('leaves nothing evicted when a later reducer of the same event throws', () => {
    const Calls = callsSlice(SliceWindow.count(2));
    const session = createSession({ slices: [Calls] });
    session.dispatch(CallsFinished({ calls: [call(1), call(2)] }));
    const evicted: EvictedItems[] = [];
    session.evicted$.subscribe((e) => evicted.push(e));
    const version = session.slice(Calls).version;
    expect(() => session.dispatch(CallsBroken())).toThrow(ReducerError);
    expect(idsOf(session.read(Calls))).toEqual([1, 2]);
    expect(session.slice(Calls).version).toBe(version);
    expect(evicted).toEqual([]);
    // and the slice goes on appending and evicting normally
    session.dispatch(CallFinished(call(3)));
    expect(idsOf(session.read(Calls))).toEqual([2, 3]);
    expect(evicted.map((e) => idsOf(e.items as Call[]))).toEqual([[1]]);
  });

  it('applies a window set at run time from the next change, and removes it with null', () => {
    const Calls = callsSlice(undefined);
    const session = createSession({ slices: [Calls] });
    session.dispatch(CallsFinished({ calls: [call(1), call(2), call(3), call(4)] }));
    session.slice(Calls).configure({ window: SliceWindow.count(2, { eviction: EvictionPolicy.lifo() }) });
    expect(idsOf(session.read(Calls))).toEqual([1, 2, 3, 4]);
    session.dispatch(CallFinished(call(5)));
    expect(idsOf(session.read(Calls))).toEqual([1, 2]);
    session.slice(Calls).configure({ window: null });
    session.dispatch(CallFinished(call(6)));
    expect(idsOf(session.read(Calls))).toEqual([1, 2, 6]);
  });

  it('applies the window to seeds', () => {
    const Calls = callsSlice(SliceWindow.count(2));
    const session = createSession({ slices: [Calls] });
    session.slice(Calls).seed([call(1), call(2), call(3)]);
    expect(idsOf(session.read(Calls))).toEqual([2, 3]);
  });

  it('snapshots capture the window contents, and restore brings them back', () => {
    const Calls = callsSlice(SliceWindow.count(3));
    const session = createSession({ slices: [Calls] });
    for (let i = 1; i <= 5; i++) session.dispatch(CallFinished(call(i)));
    const snap = session.snapshot({ includeLogs: true });
    expect(idsOf(snap.slices['calls']?.items as Call[])).toEqual([3, 4, 5]);
    for (let i = 6; i <= 9; i++) session.dispatch(CallFinished(call(i)));
    session.restore(snap);
    expect(idsOf(session.read(Calls))).toEqual([3, 4, 5]);
    session.dispatch(CallFinished(call(10)));
    expect(idsOf(session.read(Calls))).toEqual([4, 5, 10]);
  });

  it('keeps memory flat: a count window of 1,000 over one million appends bounds the buffer', () => {
    let storage: SliceStorage<Call> | undefined;
    const Calls = callsSlice(SliceWindow.count(1000));
    const session = createSession({
      slices: [Calls],
      validation: 'off',
      storage: {
        log: (def) => {
          const made = new MemoryStorage(def.initial);
          storage = made as unknown as SliceStorage<Call>;
          return made;
        },
      },
    });
    let maxBuffer = 0;
    const item = call(0);
    for (let i = 0; i < 1_000_000; i++) {
      session.dispatch(CallFinished(item));
      if (i % 997 === 0) maxBuffer = Math.max(maxBuffer, (storage as unknown as { content: { buf: unknown[] } }).content.buf.length);
    }
    expect(session.slice(Calls).size).toBe(1000);
    // dropFront compacts once half of the buffer is dead (and at least 1,024 items are), so it stays under ~2,050
    expect(maxBuffer).toBeLessThan(2100);
    expect((storage as unknown as { content: { times: unknown[] } }).content.times.length).toBeLessThan(2100);
  });
});
