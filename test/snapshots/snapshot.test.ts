import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createSession,
  defineSlice,
  InvalidSnapshotError,
  snapshotFromJSON,
  UnknownSliceError,
  SNAPSHOT_FORMAT_VERSION,
} from '../../src/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const make = () => createSession({ slices: [Counter, Notes], validation: 'always' });

describe('session.snapshot / restore', () => {
  it('captures state slices only by default, and logs with includeLogs', () => {
    const s = make();
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(Object.keys(s.snapshot().slices)).toEqual(['counter']);
    expect(Object.keys(s.snapshot({ includeLogs: true }).slices)).toEqual(['counter', 'notes']);
  });

  it('shares items with the session instead of copying them', () => {
    const s = make();
    s.dispatch(CounterBumped({ by: 1 }));
    const snap = s.snapshot({ includeLogs: true, tag: 'before' });
    expect(snap.slices['counter']?.items).toBe(s.slice(Counter).all());
    expect(snap.tag).toBe('before');
    expect(snap.seq).toBe(1);
    expect(Object.isFrozen(snap)).toBe(true);
  });

  it('restores state slices as one event and keeps logs when they were not captured', () => {
    const s = make();
    s.dispatch(CounterBumped({ by: 1 }));
    const snap = s.snapshot();
    s.dispatch(CounterBumped({ by: 5 }));
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const types: string[] = [];
    s.committed$.subscribe((c) => types.push(`${c.event.type}:${c.changed.join(',')}`));
    s.restore(snap);
    expect(s.slice(Counter).latest()).toEqual({ n: 1 });
    expect(s.slice(Notes).size).toBe(1);
    expect(types).toEqual(['rxslice.session.restored:counter']);
  });

  it('restores a subset of slices, and rejects unknown ones', () => {
    const s = make();
    const snap = s.snapshot({ includeLogs: true });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    s.restore(snap, { slices: ['notes'] });
    expect(s.slice(Notes).size).toBe(0);
    expect(s.slice(Counter).latest()).toEqual({ n: 1 });
    expect(() => s.restore(snap, { slices: ['ghost'] })).toThrow(UnknownSliceError);
  });

  it('restores in a session that keeps appending: old snapshots and later views stay intact', () => {
    const s = make();
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const snap = s.snapshot({ includeLogs: true });
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    const later = s.slice(Notes).all();
    s.restore(snap);
    s.dispatch(NoteAdded({ id: 3, text: 'c' }));
    expect(s.slice(Notes).all().map((n) => n.id)).toEqual([1, 3]);
    expect(later.map((n) => n.id)).toEqual([1, 2]);
    expect(snap.slices['notes']?.items.map((n) => (n as { id: number }).id)).toEqual([1]);
  });
});

describe('snapshot JSON codec', () => {
  it('round-trips through JSON with a format version', () => {
    const s = make();
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const text = JSON.stringify(s.snapshot({ includeLogs: true, tag: 't' }));
    const parsed = JSON.parse(text);
    expect(parsed.format).toBe('rxslice.snapshot');
    expect(parsed.formatVersion).toBe(SNAPSHOT_FORMAT_VERSION);
    const other = make();
    other.restore(snapshotFromJSON(text, [Counter, Notes]));
    expect(other.slice(Notes).all()).toEqual([{ id: 1, text: 'a' }]);
    expect(other.slice(Counter).latest()).toEqual({ n: 1 });
  });

  it('rejects unknown slices with a clear error', () => {
    const text = JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 1, seq: 0, at: 0, slices: { ghost: { policy: 'state', items: [] } } });
    expect(() => snapshotFromJSON(text, [Counter])).toThrow(UnknownSliceError);
    expect(() => snapshotFromJSON(text, [Counter])).toThrow(/ghost.*known: counter/);
  });

  it('rejects invalid items, bad JSON, newer versions, oversize and deep input', () => {
    const good = { format: 'rxslice.snapshot', formatVersion: 1, seq: 0, at: 0, slices: { counter: { policy: 'state', items: [{ n: 'x' }] } } };
    expect(() => snapshotFromJSON(JSON.stringify(good), [Counter])).toThrow(InvalidSnapshotError);
    expect(() => snapshotFromJSON('{not json', [Counter])).toThrow(/not valid JSON/);
    expect(() => snapshotFromJSON({ ...good, formatVersion: 99 }, [Counter])).toThrow(/upgrade rxslice/);
    expect(() => snapshotFromJSON('x'.repeat(100), [Counter], { maxBytes: 10 })).toThrow(/over the limit/);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(() => snapshotFromJSON({ ...good, slices: { counter: { policy: 'state', items: [deep] } } }, [Counter])).toThrow(/deeper than 64/);
    expect(() => snapshotFromJSON({ format: 'other' }, [Counter])).toThrow(/envelope is malformed/);
  });

  it('never lets __proto__ in untrusted JSON reach a prototype', () => {
    const Loose = defineSlice('loose', { policy: 'state', schema: z.object({ a: z.number() }) });
    const text = '{"format":"rxslice.snapshot","formatVersion":1,"seq":0,"at":0,"slices":{"loose":{"policy":"state","items":[{"a":1,"__proto__":{"polluted":true}}]}}}';
    const snap = snapshotFromJSON(text, [Loose]);
    const item = snap.slices['loose']?.items[0] as Record<string, unknown>;
    expect(item['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('leaves the session untouched when a JSON snapshot is invalid', () => {
    const s = make();
    s.dispatch(CounterBumped({ by: 3 }));
    const bad = { format: 'rxslice.snapshot', formatVersion: 1, seq: 0, at: 0, slices: { counter: { policy: 'state', items: [{ n: 1 }] }, notes: { policy: 'log', items: [{ id: 'x' }] } } };
    expect(() => s.restore(snapshotFromJSON(bad, [Counter, Notes]))).toThrow(InvalidSnapshotError);
    expect(s.slice(Counter).latest()).toEqual({ n: 3 });
  });
});

describe('session.transaction', () => {
  it('restores state slices when fn throws, keeps logs, and rethrows', () => {
    const s = make();
    s.dispatch(CounterBumped({ by: 1 }));
    const types: string[] = [];
    s.committed$.subscribe((c) => types.push(c.event.type));
    const boom = new Error('abort');
    expect(() =>
      s.transaction(() => {
        s.dispatch(CounterBumped({ by: 10 }));
        s.dispatch(NoteAdded({ id: 1, text: 'kept' }));
        throw boom;
      }),
    ).toThrow(boom);
    expect(s.slice(Counter).latest()).toEqual({ n: 1 });
    expect(s.slice(Notes).all()).toEqual([{ id: 1, text: 'kept' }]);
    expect(types).toEqual(['counter/bumped', 'notes/added', 'rxslice.session.restored']);
  });

  it('keeps the changes and returns the result when fn succeeds', () => {
    const s = make();
    expect(s.transaction(() => s.dispatch(CounterBumped({ by: 2 })).seq)).toBe(1);
    expect(s.slice(Counter).latest()).toEqual({ n: 2 });
  });

  it('rolls back when an async fn rejects', async () => {
    const s = make();
    await expect(
      s.transaction(async () => {
        s.dispatch(CounterBumped({ by: 5 }));
        await Promise.resolve();
        throw new Error('late');
      }),
    ).rejects.toThrow('late');
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
  });

  it('rolls back a failed dispatch inside as well (the ReducerError propagates)', async () => {
    const { Exploded } = await import('../fixtures');
    const s = make();
    expect(() =>
      s.transaction(() => {
        s.dispatch(CounterBumped({ by: 3 }));
        s.dispatch(Exploded({ message: 'reducer failed' }));
      }),
    ).toThrow(/reducer failed/);
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
  });
});
