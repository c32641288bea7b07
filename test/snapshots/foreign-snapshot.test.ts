import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createSession,
  defineSlice,
  InvalidSliceItemError,
  InvalidSnapshotError,
  snapshotFromJSON,
  type Snapshot,
} from '../../src/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

/** A snapshot-shaped object that no session or codec made. */
const handMade = (slices: Snapshot['slices']): Snapshot =>
  ({ formatVersion: 1, id: 'hand-made', parents: [], seq: 0, at: 0, tag: undefined, slices, toJSON: () => ({}) as never }) as Snapshot;

describe('restoring a snapshot the session did not take', () => {
  it('validates a hand-made snapshot with the slice schema: an invalid item throws and nothing changes', () => {
    const s = createSession({ slices: [Counter, Notes] });
    s.dispatch(CounterBumped({ by: 2 }));
    const before = s.slice(Counter).all();
    const version = s.slice(Counter).version;
    const committed: string[] = [];
    s.committed$.subscribe((c) => committed.push(c.event.type));
    const bad = handMade({ counter: { policy: 'state', version: 9, items: [{ n: 'not a number' }] } });
    expect(() => s.restore(bad)).toThrow(InvalidSliceItemError);
    expect(s.slice(Counter).all()).toBe(before);
    expect(s.slice(Counter).version).toBe(version);
    expect(committed).toEqual([]);
    expect(() => s.restore(handMade({ counter: { policy: 'state', version: 1 } as never }))).toThrow(InvalidSnapshotError);
  });

  it('copies a valid hand-made snapshot, so its maker cannot change the session afterwards', () => {
    const s = createSession({ slices: [Counter, Notes] });
    const item = { n: 5 };
    const items = [item];
    s.restore(handMade({ counter: { policy: 'state', version: 1, items } }));
    expect(s.slice(Counter).latest()).toEqual({ n: 5 });
    item.n = 99;
    items.push({ n: 7 });
    expect(s.slice(Counter).all()).toEqual([{ n: 5 }]);
    expect(Object.isFrozen(s.slice(Counter).latest())).toBe(true);
  });

  it('validates a snapshot from a session whose slice of the same name has another definition', () => {
    const Loose = defineSlice('counter', { policy: 'state', schema: z.object({ n: z.string() }), initial: [{ n: 'x' }] });
    const other = createSession({ slices: [Loose] });
    const s = createSession({ slices: [Counter, Notes] });
    expect(() => s.restore(other.snapshot())).toThrow(InvalidSliceItemError);
    expect(s.slice(Counter).latest()).toEqual(Counter.initial[0]);
  });

  it('trusts snapshots made under the same definitions: another session, or snapshotFromJSON', () => {
    const a = createSession({ slices: [Counter, Notes] });
    a.dispatch(CounterBumped({ by: 3 }));
    a.dispatch(NoteAdded({ id: 1, text: 'n' }));
    const b = createSession({ slices: [Counter, Notes] });
    const fromA = a.snapshot({ includeLogs: true });
    b.restore(fromA);
    // No copy: the items are the very ones session a holds.
    expect(b.slice(Counter).latest()).toBe(a.slice(Counter).latest());
    const c = createSession({ slices: [Counter, Notes] });
    const parsed = snapshotFromJSON(JSON.stringify(fromA), [Counter, Notes]);
    c.restore(parsed);
    expect(c.slice(Counter).latest()).toBe(parsed.slices['counter']?.items[0]);
    expect(c.slice(Notes).all()).toEqual(a.slice(Notes).all());
  });
});
