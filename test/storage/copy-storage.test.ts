import { describe, expect, it } from 'vitest';
import { createSession, ReducerError, snapshotFromJSON, SliceWindow } from '../../src/index';
import { Counter, CounterBumped, Exploded, NoteAdded, Notes } from '../fixtures';
import { call, CallFinished, callsSlice } from '../windows/window-fixtures';
import { CopyStorage, copyStorage } from './copy-storage';
import { storageConformance } from './storage-conformance';

// The SliceStorage contract is honest when a backend written from the interface alone passes
// the shared suite and carries a whole session: commits, rollbacks, windows, snapshots.
storageConformance('copy-on-write (test backend)', (initial) => new CopyStorage(initial));

describe('a session on another SliceStorage backend', () => {
  const make = () => {
    const made: CopyStorage<unknown>[] = [];
    const factory = copyStorage(made);
    const session = createSession({ slices: [Counter, Notes], validation: 'always', storage: { state: factory, log: factory } });
    return { session, made };
  };

  it('stores every slice there, and commits all or nothing', () => {
    const { session, made } = make();
    expect(made).toHaveLength(2);
    session.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(made.map((m) => m.all())).toEqual([[{ n: 1 }], [{ id: 1, text: 'a' }]]);
    expect(() => session.dispatch(Exploded({ message: 'boom' }))).toThrow(ReducerError);
    expect(session.slice(Counter).latest()).toEqual({ n: 1 });
    expect(made.map((m) => m.version)).toEqual([1, 1]);
  });

  it('snapshots and restores, also a snapshot taken on the memory backend (no backend token to reuse)', () => {
    const { session } = make();
    session.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const snap = session.snapshot({ includeLogs: true });
    session.dispatch(CounterBumped({ by: 5 }));
    session.dispatch(NoteAdded({ id: 2, text: 'b' }));
    session.restore(snap);
    expect(session.slice(Notes).all()).toEqual([{ id: 1, text: 'a' }]);
    expect(session.slice(Counter).latest()).toEqual({ n: 1 });

    const onMemory = createSession({ slices: [Counter, Notes] });
    onMemory.dispatch(NoteAdded({ id: 7, text: 'm' }));
    session.restore(onMemory.snapshot({ includeLogs: true }));
    expect(session.slice(Notes).all()).toEqual([{ id: 7, text: 'm' }]);
    const json = JSON.stringify(session.snapshot({ includeLogs: true }));
    onMemory.restore(snapshotFromJSON(json, [Counter, Notes]));
    expect(onMemory.slice(Notes).all()).toEqual([{ id: 7, text: 'm' }]);
  });

  it('runs windows through the transaction: evictions inside the commit, reported on evicted$', () => {
    const Calls = callsSlice(SliceWindow.count(2));
    const session = createSession({ slices: [Calls], storage: { log: copyStorage() } });
    const evicted: number[] = [];
    session.evicted$.subscribe((e) => evicted.push(...(e.items as { id: number }[]).map((c) => c.id)));
    for (let i = 1; i <= 4; i++) session.dispatch(CallFinished(call(i)));
    expect(session.slice(Calls).all().map((c) => c.id)).toEqual([3, 4]);
    expect(session.slice(Calls).version).toBe(4);
    expect(evicted).toEqual([1, 2]);
  });
});
