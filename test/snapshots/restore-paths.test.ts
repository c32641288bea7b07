import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, ReducerError, SessionRestored, SliceWindow, type CommittedEnvelope } from '../../src/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

/**
 * A whole snapshot of memory slices without windows is restored by swapping each slice's captured
 * content back in; anything else (a reducer of the restored event, a window, part of a snapshot)
 * stages the restore. Both paths must give the same state and the same audit, and neither may
 * leave half a restore behind.
 */
const Audit = defineSlice('audit', {
  policy: 'log',
  schema: z.object({ fromSeq: z.number() }),
  reducers: ({ on }) => [on(SessionRestored, (_view, e) => append({ fromSeq: e.payload.fromSeq }))],
});

const Boom = defineSlice('boom', {
  policy: 'state',
  schema: z.object({ n: z.number() }),
  initial: [{ n: 0 }],
  reducers: ({ on }) => [
    on(SessionRestored, () => {
      throw new Error('no restores here');
    }),
  ],
});

const Ping = defineEvent('paths/ping');
const Recent = defineSlice('recent', {
  policy: 'log',
  schema: z.object({ i: z.number() }),
  window: SliceWindow.count(2),
  reducers: ({ on }) => [on(Ping, (view) => append({ i: view.size }))],
});

function committedOf(session: { committed$: { subscribe(f: (c: CommittedEnvelope) => void): unknown } }): CommittedEnvelope[] {
  const seen: CommittedEnvelope[] = [];
  session.committed$.subscribe((c) => seen.push(c));
  return seen;
}

describe('restore: swapped and staged paths', () => {
  it('swaps whole snapshots back in: the captured arrays, one audited event, every slice one version up', () => {
    const s = createSession({ slices: [Counter, Notes] });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const a = s.snapshot({ includeLogs: true });
    const counterA = s.slice(Counter).all();
    const notesA = s.slice(Notes).all();
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    const seen = committedOf(s);
    const versions = [s.slice(Counter).version, s.slice(Notes).version];
    for (let k = 0; k < 3; k++) s.restore(a);
    expect(s.slice(Counter).all()).toBe(counterA);
    expect(s.slice(Notes).all()).toBe(notesA);
    expect([s.slice(Counter).version, s.slice(Notes).version]).toEqual([versions[0]! + 3, versions[1]! + 3]);
    expect(seen.map((c) => [c.event.type, c.changed])).toEqual(Array.from({ length: 3 }, () => [SessionRestored.type, ['counter', 'notes']]));
    expect(seen.map((c) => c.seq)).toEqual([3, 4, 5]);
    // A snapshot taken after the restore is a new snapshot of the same content, with its own versions.
    const b = s.snapshot({ includeLogs: true });
    expect(b.parents).toEqual([a.id]);
    expect(b.slices['notes']?.items).toBe(notesA);
    expect(b.slices['notes']?.version).toBe(versions[1]! + 3);
    expect(a.slices['notes']?.version).toBe(1);
  });

  it('stages the restore when a reducer listens to the restored event: the reducer sees and changes the restored state', () => {
    const s = createSession({ slices: [Counter, Notes, Audit] });
    s.dispatch(CounterBumped({ by: 5 }));
    const snap = s.snapshot({ includeLogs: true });
    s.dispatch(CounterBumped({ by: 1 }));
    s.restore(snap, { slices: ['counter'] });
    expect(s.slice(Counter).latest()).toEqual({ n: 5 });
    expect(s.slice(Audit).all()).toEqual([{ fromSeq: 1 }]);
    // A whole snapshot of the session (its own plan) with a listening reducer: the audit slice is
    // restored (to empty) and then appended to by the reducer, in the same event.
    s.restore(snap);
    expect(s.slice(Audit).all()).toEqual([{ fromSeq: 1 }]);
    expect(s.slice(Counter).latest()).toEqual({ n: 5 });
  });

  it('restores nothing when a reducer of the restored event throws, on the whole-snapshot path too', () => {
    const s = createSession({ slices: [Counter, Notes, Boom] });
    s.dispatch(CounterBumped({ by: 2 }));
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const snap = s.snapshot({ includeLogs: true });
    s.dispatch(CounterBumped({ by: 40 }));
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    const counter = s.slice(Counter).all();
    const notes = s.slice(Notes).all();
    const versions = [s.slice(Counter).version, s.slice(Notes).version];
    const seen = committedOf(s);
    expect(() => s.restore(snap)).toThrow(ReducerError);
    expect(s.slice(Counter).all()).toBe(counter);
    expect(s.slice(Notes).all()).toBe(notes);
    expect([s.slice(Counter).version, s.slice(Notes).version]).toEqual(versions);
    expect(seen).toEqual([]);
    // The session goes on, and a later snapshot names no parent (the restore never happened).
    s.dispatch(CounterBumped({ by: 1 }));
    expect(s.slice(Counter).latest()).toEqual({ n: 45 });
    expect(s.snapshot().parents).toEqual([]);
  });

  it('stages the restore of a slice with a window: the current window applies and the evicted items are reported', () => {
    const s = createSession({ slices: [Recent, Counter] });
    s.dispatch(Ping());
    const snap = s.snapshot({ includeLogs: true });
    s.dispatch(Ping());
    s.dispatch(Ping());
    expect(s.slice(Recent).all()).toEqual([{ i: 1 }, { i: 2 }]);
    s.restore(snap);
    expect(s.slice(Recent).all()).toEqual([{ i: 0 }]);
    s.dispatch(Ping());
    s.dispatch(Ping());
    expect(s.slice(Recent).all()).toEqual([{ i: 1 }, { i: 2 }]);
  });

  it('applies a window configured after a snapshot was swapped back in: the next restore of it stages and evicts', () => {
    const Log = defineSlice('swap-log', { policy: 'log', reducers: ({ on }) => [on(Ping, (view) => append({ i: view.size }))] });
    const s = createSession({ slices: [Log, Counter] });
    for (let k = 0; k < 4; k++) s.dispatch(Ping());
    const a = s.snapshot({ includeLogs: true });
    s.dispatch(Ping());
    const b = s.snapshot({ includeLogs: true });
    // Restored in turn, as undo and redo do: the swapped path (the captured arrays come back).
    for (let k = 0; k < 3; k++) {
      s.restore(a);
      expect(s.slice(Log).all()).toBe(a.slices['swap-log']?.items);
      s.restore(b);
    }
    const evicted: unknown[] = [];
    s.evicted$.subscribe((e) => evicted.push(...e.items));
    s.slice(Log).configure({ window: SliceWindow.count(2) });
    const seen = committedOf(s);
    s.restore(a);
    expect(s.slice(Log).all()).toEqual([{ i: 2 }, { i: 3 }]);
    expect(evicted).toEqual([{ i: 0 }, { i: 1 }]);
    expect(seen.map((c) => [c.event.type, c.changed])).toEqual([[SessionRestored.type, ['swap-log', 'counter']]]);
    // Removed again: the whole snapshot is swapped back in as it was captured.
    s.slice(Log).configure({ window: null });
    s.restore(b);
    expect(s.slice(Log).all()).toBe(b.slices['swap-log']?.items);
  });

  it('tells the observables of each slice about a restore, whichever slice was observed first and when', () => {
    const s = createSession({ slices: [Counter, Notes] });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const a = s.snapshot({ includeLogs: true });
    s.dispatch(CounterBumped({ by: 2 }));
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    const b = s.snapshot({ includeLogs: true });
    // Restores while no slice has an observable, then observables asked for one slice at a time.
    s.restore(a);
    s.restore(b);
    const notes: number[] = [];
    s.slice(Notes).all$.subscribe((items) => notes.push(items.length));
    s.restore(a);
    const counters: unknown[] = [];
    s.slice(Counter).latest$.subscribe((latest) => counters.push(latest));
    const changes: number[] = [];
    s.slice(Counter).changes$.subscribe((u) => changes.push(u.version));
    s.restore(b);
    s.restore(a);
    expect(notes).toEqual([2, 1, 2, 1]);
    expect(counters).toEqual([{ n: 1 }, { n: 4 }, { n: 1 }]);
    expect(changes).toEqual([s.slice(Counter).version - 1, s.slice(Counter).version]);
  });

  it('refuses a window that is not a window policy, when the slice is defined and when it is configured', () => {
    expect(() => defineSlice('w', { policy: 'log', window: { kind: 'count', size: 2 } as never })).toThrow(
      /window must be a window policy such as SliceWindow.count\(100\).*got \{"kind":"count","size":2\}/,
    );
    const s = createSession({ slices: [Recent] });
    expect(() => s.slice(Recent).configure({ window: 5 as never })).toThrow(/slice "recent": window must be a window policy.*got 5/);
    s.dispatch(Ping());
    expect(s.slice(Recent).size).toBe(1);
  });
});
