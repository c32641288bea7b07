import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createSession,
  defineEvent,
  defineSlice,
  replace,
  InvalidSnapshotError,
  snapshotFromJSON,
  UnknownSliceError,
  SNAPSHOT_FORMAT_VERSION,
  SessionRestored,
  type Envelope,
} from '../../src/index';
import { map } from 'rxjs';
import { SESSION_INTERNALS } from '../../src/session/internals';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const Put = defineEvent('deep/put', z.object({ value: z.unknown() }));

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

  it('swaps the captured contents back on restore: the same arrays, one audited event, each version one up', () => {
    const s = make();
    s.dispatch(CounterBumped({ by: 1 }));
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const snap = s.snapshot({ includeLogs: true });
    const counterBefore = s.slice(Counter).all();
    s.dispatch(CounterBumped({ by: 5 }));
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    const versions = [s.slice(Counter).version, s.slice(Notes).version];
    const committed: Envelope[] = [];
    s.committed$.subscribe((e) => committed.push(e));
    s.restore(snap);
    expect(committed.map((e) => e.event.type)).toEqual([SessionRestored.type]);
    expect(s.slice(Counter).all()).toBe(counterBefore);
    expect(s.slice(Counter).all()).toBe(snap.slices['counter']?.items);
    expect(s.slice(Notes).all()).toEqual([{ id: 1, text: 'a' }]);
    expect([s.slice(Counter).version, s.slice(Notes).version]).toEqual([versions[0]! + 1, versions[1]! + 1]);
    // A snapshot of the restored state captures the same items again, and later changes leave both alone.
    const again = s.snapshot({ includeLogs: true });
    expect(again.slices['counter']?.items).toBe(snap.slices['counter']?.items);
    s.dispatch(NoteAdded({ id: 3, text: 'c' }));
    expect(snap.slices['notes']?.items).toEqual([{ id: 1, text: 'a' }]);
    expect(s.slice(Notes).all().map((n) => n.id)).toEqual([1, 3]);
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

describe('snapshot and restore fast paths', () => {
  const ids = (items: readonly unknown[] | undefined) => (items ?? []).map((n) => (n as { id: number }).id);

  it('restoring a snapshot after further appends to a log yields exactly its items, every time', () => {
    const s = make();
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    const snap = s.snapshot({ includeLogs: true });
    for (let round = 0; round < 3; round++) {
      s.dispatch(NoteAdded({ id: 10 + round, text: 'later' }));
      s.dispatch(CounterBumped({ by: 100 }));
      s.restore(snap);
      expect(ids(s.slice(Notes).all())).toEqual([1, 2]);
      expect(s.slice(Counter).latest()).toEqual({ n: 2 });
    }
    s.dispatch(NoteAdded({ id: 3, text: 'c' }));
    expect(ids(s.slice(Notes).all())).toEqual([1, 2, 3]);
    expect(ids(snap.slices['notes']?.items)).toEqual([1, 2]);
  });

  it('a snapshot taken before a restore is unaffected by the restore and by later changes', () => {
    const s = make();
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const early = s.snapshot({ includeLogs: true });
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    const before = s.snapshot({ includeLogs: true });
    const beforeJSON = JSON.stringify(before);
    s.restore(early);
    s.dispatch(NoteAdded({ id: 3, text: 'c' }));
    s.dispatch(CounterBumped({ by: 7 }));
    expect(ids(before.slices['notes']?.items)).toEqual([1, 2]);
    expect(before.slices['counter']?.items).toEqual([{ n: 2 }]);
    expect(JSON.stringify(before)).toBe(beforeJSON);
    s.restore(before);
    expect(ids(s.slice(Notes).all())).toEqual([1, 2]);
    expect(s.slice(Counter).latest()).toEqual({ n: 2 });
  });

  it('shares the entry of an unchanged slice between snapshots; each entry has the version it captured', () => {
    const s = make();
    const a = s.snapshot({ includeLogs: true });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const b = s.snapshot({ includeLogs: true });
    expect(b.slices['notes']?.version).toBe(1);
    expect(a.slices['notes']?.version).toBe(0);
    const c = s.snapshot({ includeLogs: true, tag: 'c' });
    expect(c.slices['notes']).toBe(b.slices['notes']);
    expect(Object.isFrozen(c.slices)).toBe(true);
    expect(Object.isFrozen(c.slices['notes'])).toBe(true);
    expect(Object.keys(c.slices)).toEqual(['counter', 'notes']);
    expect(c.slices).toBe(c.slices);
  });

  it('freezes entries as the session freezes items; the snapshot itself is always frozen', () => {
    const s = createSession({ slices: [Counter, Notes], freeze: false });
    s.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const snap = s.snapshot({ includeLogs: true });
    expect(Object.isFrozen(snap)).toBe(true);
    expect(Object.isFrozen(snap.slices)).toBe(true);
    expect(Object.isFrozen(snap.slices['notes'])).toBe(false);
    s.dispatch(NoteAdded({ id: 2, text: 'b' }));
    s.dispatch(CounterBumped({ by: 5 }));
    expect(ids(snap.slices['notes']?.items)).toEqual([1]);
    expect(snap.slices['counter']?.items).toEqual([{ n: 1 }]);
  });

  it('counts a restore as one change of every restored slice, also when restoring the same snapshot again', () => {
    const s = make();
    const snap = s.snapshot({ includeLogs: true });
    const changed: string[][] = [];
    s.committed$.subscribe((c) => changed.push([...c.changed]));
    const v = s.slice(Notes).version;
    s.restore(snap);
    s.restore(snap);
    expect(changed).toEqual([
      ['counter', 'notes'],
      ['counter', 'notes'],
    ]);
    expect(s.slice(Notes).version).toBe(v + 2);
  });

  it('restores a snapshot of another session with the same slices, and a subset of its own', () => {
    const source = make();
    source.dispatch(NoteAdded({ id: 1, text: 'a' }));
    const snap = source.snapshot({ includeLogs: true });
    const target = make();
    target.restore(snap);
    expect(ids(target.slice(Notes).all())).toEqual([1]);
    expect(target.slice(Counter).latest()).toEqual({ n: 1 });
    target.dispatch(NoteAdded({ id: 2, text: 'b' }));
    expect(ids(source.slice(Notes).all())).toEqual([1]);
    source.dispatch(NoteAdded({ id: 3, text: 'c' }));
    source.restore(snap, { slices: ['counter'] });
    expect(source.slice(Counter).latest()).toEqual({ n: 1 });
    expect(ids(source.slice(Notes).all())).toEqual([1, 3]);
  });

  it('restores past operator middleware: library events bypass it, so rewriting the restored event changes nothing', () => {
    const rewrite = map((env: Envelope) =>
      SessionRestored.match(env.event) ? { ...env, event: { ...env.event, payload: { ...env.event.payload, slices: [...env.event.payload.slices] } } } : env,
    );
    for (const operators of [[map((env: Envelope) => ({ ...env }))], [rewrite]]) {
      const s = createSession({ slices: [Counter, Notes], middleware: { operators } });
      s.dispatch(NoteAdded({ id: 1, text: 'a' }));
      const snap = s.snapshot({ includeLogs: true });
      s.dispatch(NoteAdded({ id: 2, text: 'b' }));
      s.restore(snap);
      expect(ids(s.slice(Notes).all())).toEqual([1]);
      expect(s.slice(Counter).latest()).toEqual({ n: 1 });
    }
  });

  it('captures slices added after earlier snapshots, and still restores the earlier ones', () => {
    const s = make();
    const before = s.snapshot();
    const Extra = defineSlice('extra', { policy: 'state', initial: [1], reducers: () => [] });
    s[SESSION_INTERNALS].addSlice(Extra);
    expect(Object.keys(s.snapshot().slices)).toEqual(['counter', 'extra']);
    s.dispatch(CounterBumped({ by: 1 }));
    s.restore(before);
    expect(s.slice(Counter).latest()).toEqual({ n: 0 });
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
    for (let i = 0; i < 600; i++) deep = { d: deep };
    expect(() => snapshotFromJSON({ ...good, slices: { counter: { policy: 'state', items: [deep] } } }, [Counter])).toThrow(/deeper than 517/);
    expect(() => snapshotFromJSON({ format: 'other' }, [Counter])).toThrow(/envelope is malformed/);
    expect(() => snapshotFromJSON({ ...good, slices: { counter: { policy: 'state', items: { 0: { n: 1 } } } } }, [Counter])).toThrow(
      /envelope is malformed/,
    );
  });

  it('reads back, under the default limits, any item a session accepts (nested as deep as the live limit)', () => {
    const Deep = defineSlice('deep', { policy: 'state', reducers: ({ on }) => [on(Put, (_v, e) => replace([e.payload.value]))] });
    let value: unknown = 'leaf';
    for (let i = 0; i < 511; i++) value = i % 2 === 0 ? { d: value } : [value];
    const s = createSession({ slices: [Deep] });
    s.dispatch(Put({ value }));
    const back = snapshotFromJSON(JSON.stringify(s.snapshot()), [Deep]);
    expect(back.slices['deep']?.items).toEqual([value]);
    const other = createSession({ slices: [Deep] });
    other.restore(back);
    expect(other.slice(Deep).latest()).toEqual(value);
  });

  it('limits depth exactly: objects and arrays at depth maxDepth - 1 pass, one level more fails', () => {
    const Any = defineSlice('any', { policy: 'state', reducers: () => [] });
    // The root is at depth 0, `slices` at 1, the slice at 2, `items` at 3, an item at 4.
    const nest = (levels: number, leaf: unknown, asArray: boolean): unknown => {
      let value = leaf;
      for (let i = 0; i < levels; i++) value = asArray ? [value] : { d: value };
      return value;
    };
    const withItem = (item: unknown) => ({ format: 'rxslice.snapshot', formatVersion: 1, seq: 0, at: 0, slices: { any: { policy: 'state', items: [item] } } });
    for (const asArray of [false, true]) {
      // An item of `levels` nested containers around an object leaf: the leaf sits at depth 4 + levels.
      expect(() => snapshotFromJSON(JSON.stringify(withItem(nest(5, {}, asArray))), [Any], { maxDepth: 10 })).not.toThrow();
      expect(() => snapshotFromJSON(JSON.stringify(withItem(nest(6, {}, asArray))), [Any], { maxDepth: 10 })).toThrow(/deeper than 10/);
      // Primitives do not count as a level.
      expect(() => snapshotFromJSON(JSON.stringify(withItem(nest(5, 1, asArray))), [Any], { maxDepth: 10 })).not.toThrow();
    }
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
