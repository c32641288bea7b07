import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  InvalidSnapshotError,
  Snapshot,
  SnapshotOperationError,
  snapshotFromJSON,
  SessionRestored,
  SliceWindow,
  UnknownSliceError,
  type CommittedEnvelope,
} from '../../src/index';

const Said = defineEvent('chat/said', z.object({ text: z.string() }));
const Renamed = defineEvent('profile/renamed', z.object({ name: z.string() }));
const Spent = defineEvent('profile/spent', z.object({ tokens: z.number().int() }));
const Flagged = defineEvent('flags/set', z.object({ flag: z.string() }));

const Messages = defineSlice('messages', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  window: SliceWindow.count(5),
  reducers: ({ on }) => [on(Said, (_v, e) => append(e.payload))],
});
const Profile = defineSlice('profile', {
  policy: 'state',
  schema: z.object({ name: z.string(), tokens: z.number(), note: z.string().optional() }),
  initial: [{ name: 'anon', tokens: 0 }],
  reducers: ({ onLatest }) => [
    onLatest(Renamed, (p, e) => ({ name: e.payload.name, tokens: p?.tokens ?? 0 })),
    onLatest(Spent, (p, e) => ({ name: p?.name ?? 'anon', tokens: (p?.tokens ?? 0) + e.payload.tokens })),
  ],
});
const Flags = defineSlice('flags', {
  policy: 'state',
  schema: z.string(),
  reducers: ({ on }) => [on(Flagged, (_v, e) => append(e.payload.flag))],
});
const SLICES = [Messages, Profile, Flags];
const session = () => createSession({ slices: SLICES });
const names = (s: Snapshot) => Object.keys(s.slices);

describe('selective snapshots', () => {
  it('include captures exactly the named slices (definitions or names, logs too); exclude drops from the default set', () => {
    const s = session();
    s.dispatch(Said({ text: 'a' }));
    expect(names(s.snapshot({ include: [Messages, 'flags'] }))).toEqual(['messages', 'flags']);
    expect(names(s.snapshot({ exclude: [Profile] }))).toEqual(['flags']);
    expect(names(s.snapshot({ includeLogs: true, exclude: ['flags'] }))).toEqual(['messages', 'profile']);
    expect(names(s.snapshot({ include: [Profile], exclude: [Flags] }))).toEqual(['profile']);
    expect(s.snapshot({ include: [Messages] }).slices['messages']?.items).toEqual([{ text: 'a' }]);
  });

  it('include and exclude naming the same slice, an unknown slice or a non-slice are clear errors', () => {
    const s = session();
    expect(() => s.snapshot({ include: [Profile], exclude: ['profile'] })).toThrow(InvalidSnapshotError);
    expect(() => s.snapshot({ include: [Profile], exclude: ['profile'] })).toThrow(/include and exclude both name "profile"/);
    let error: unknown;
    try {
      s.snapshot({ include: ['nope'] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnknownSliceError);
    expect((error as UnknownSliceError).where).toBe('session');
    expect((error as Error).message).toContain('The session has no slice "nope" (registered: messages, profile, flags)');
    expect(() => s.snapshot({ exclude: [42 as never] })).toThrow(/snapshot option "exclude" holds 42/);
  });

  it('a selection is still O(slices): a snapshot of an unchanged slice shares the previous entry', () => {
    const s = session();
    const a = s.snapshot({ include: [Profile] });
    const b = s.snapshot({ include: [Profile] });
    expect(b.slices['profile']).toBe(a.slices['profile']);
    s.dispatch(Spent({ tokens: 3 }));
    expect(s.snapshot({ include: [Profile] }).slices['profile']).not.toBe(a.slices['profile']);
  });

  it('restore { slices } restores only those and keeps the rest; a slice the snapshot lacks is named with what it holds', () => {
    const s = session();
    s.dispatch(Renamed({ name: 'ada' }));
    s.dispatch(Flagged({ flag: 'x' }));
    const before = s.snapshot();
    s.dispatch(Renamed({ name: 'bob' }));
    s.dispatch(Flagged({ flag: 'y' }));
    s.restore(before, { slices: [Profile] });
    expect(s.slice(Profile).latest()).toEqual({ name: 'ada', tokens: 0 });
    expect(s.slice(Flags).all()).toEqual(['x', 'y']);
    let error: unknown;
    try {
      s.restore(s.snapshot({ include: [Profile] }), { slices: [Flags] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnknownSliceError);
    expect((error as UnknownSliceError).where).toBe('snapshot');
    expect((error as Error).message).toContain('The snapshot does not hold slice "flags" (it holds: profile)');
    expect(s.slice(Flags).all()).toEqual(['x', 'y']);
  });
});

describe('snapshot ids and lineage', () => {
  it('every snapshot has an id; after a restore, later snapshots name the restored one as parent; the restored event carries its id', () => {
    const s = session();
    const restored: CommittedEnvelope[] = [];
    s.committed$.subscribe((c) => SessionRestored.match(c.event) && restored.push(c));
    const root = s.snapshot();
    expect(root.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(root.id).toBe(root.id);
    expect(root.parents).toEqual([]);
    expect(s.snapshot().id).not.toBe(root.id);
    s.restore(root);
    const child = s.snapshot();
    expect(child.parents).toEqual([root.id]);
    expect(restored.map((c) => (c.event.payload as { snapshotId?: string }).snapshotId)).toEqual([root.id]);
  });

  it('the JSON form keeps id and parents (format 3); format 2 JSON reads with a new id and no parents', () => {
    const s = session();
    s.restore(s.snapshot());
    const snap = s.snapshot();
    const back = snapshotFromJSON(JSON.stringify(snap), SLICES);
    expect(back.id).toBe(snap.id);
    expect(back.parents).toEqual(snap.parents);
    expect(back.parents).toHaveLength(1);
    const v2 = { format: 'rxslice.snapshot', formatVersion: 2, seq: 1, at: 0, slices: { flags: { policy: 'state', schemaVersion: 1, items: ['z'] } } };
    const old = snapshotFromJSON(JSON.stringify(v2), SLICES);
    expect(old.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(old.parents).toEqual([]);
    expect(() => snapshotFromJSON({ ...v2, formatVersion: 3, parents: [1] }, SLICES)).toThrow(InvalidSnapshotError);
  });
});

describe('Snapshot.merge', () => {
  it('later snapshots win per slice; the result records its parents and the largest seq', () => {
    const s = session();
    s.dispatch(Renamed({ name: 'ada' }));
    const early = s.snapshot({ include: [Profile, Flags] });
    s.dispatch(Renamed({ name: 'bob' }));
    s.dispatch(Said({ text: 'm' }));
    const late = s.snapshot({ include: [Profile, Messages] });
    const merged = Snapshot.merge(early, late);
    expect(names(merged)).toEqual(['profile', 'flags', 'messages']);
    expect(merged.slices['profile']?.items).toEqual([{ name: 'bob', tokens: 0 }]);
    expect(merged.parents).toEqual([early.id, late.id]);
    expect(merged.seq).toBe(late.seq);
    expect(Snapshot.merge(late, early).slices['profile']?.items).toEqual([{ name: 'ada', tokens: 0 }]);
    expect(() => Snapshot.merge()).toThrow(SnapshotOperationError);
    expect(() => Snapshot.merge(early, {} as Snapshot)).toThrow(/input 1 is not a snapshot/);
  });

  it('restoring a merge of include-A and include-B snapshots equals the session for A ∪ B (property)', () => {
    const event = fc.oneof(
      fc.string({ maxLength: 3 }).map((text) => Said({ text })),
      fc.string({ maxLength: 3 }).map((name) => Renamed({ name })),
      fc.integer({ min: 0, max: 9 }).map((tokens) => Spent({ tokens })),
      fc.string({ maxLength: 3 }).map((flag) => Flagged({ flag })),
    );
    const subset = fc.subarray(SLICES, { minLength: 1 });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), subset, subset, fc.array(event, { maxLength: 12 }), (first, a, b, later) => {
        const s = session();
        for (const e of first) s.dispatch(e);
        const expected = Object.fromEntries(SLICES.map((d) => [d.name, s.read(d.name)]));
        const merged = Snapshot.merge(s.snapshot({ include: a }), s.snapshot({ include: b }));
        for (const e of later) s.dispatch(e);
        const untouched = Object.fromEntries(SLICES.map((d) => [d.name, s.read(d.name)]));
        s.restore(merged);
        const union = new Set([...a, ...b].map((d) => d.name));
        for (const d of SLICES) expect(s.read(d.name)).toEqual(union.has(d.name) ? expected[d.name] : untouched[d.name]);
      }),
      { numRuns: 150 },
    );
  });
});

describe('Snapshot.diff and Snapshot.apply', () => {
  it('a log slice: appended and evicted items; a state slice: the changed fields of its latest item; added and removed slices', () => {
    const s = session();
    for (const text of ['1', '2', '3', '4', '5']) s.dispatch(Said({ text }));
    s.dispatch(Renamed({ name: 'ada' }));
    const before = s.snapshot({ include: [Messages, Profile] });
    s.dispatch(Said({ text: '6' }));
    s.dispatch(Said({ text: '7' }));
    s.dispatch(Spent({ tokens: 5 }));
    s.dispatch(Flagged({ flag: 'f' }));
    const after = s.snapshot({ include: [Messages, Profile, Flags] });
    const d = Snapshot.diff(before, after);
    expect(d.modified['messages']).toEqual({ kind: 'log', policy: 'log', evicted: [{ text: '1' }, { text: '2' }], appended: [{ text: '6' }, { text: '7' }] });
    expect(d.modified['profile']).toEqual({
      kind: 'fields',
      policy: 'state',
      index: 0,
      set: { tokens: 5 },
      unset: [],
      previous: { tokens: 0 },
      before: { name: 'ada', tokens: 0 },
      after: { name: 'ada', tokens: 5 },
    });
    expect(d.added).toEqual({ flags: { policy: 'state', items: ['f'] } });
    expect(d.removed).toEqual([]);
    expect(Snapshot.diff(after, before).removed).toEqual(['flags']);
    expect(Snapshot.diff(before, before)).toEqual({ fromSeq: before.seq, toSeq: before.seq, toAt: before.at, added: {}, removed: [], modified: {} });
    const applied = Snapshot.apply(before, d);
    for (const name of names(after)) expect(applied.slices[name]?.items).toEqual(after.slices[name]?.items);
    expect(applied.seq).toBe(after.seq);
    expect(applied.parents).toEqual([before.id]);
  });

  it('gives a modified state slice its (before, after) pair beside the field-level change; log slices keep their shape', () => {
    const s = session();
    s.dispatch(Renamed({ name: 'ada' }));
    s.dispatch(Said({ text: 'hello' }));
    const s1 = s.snapshot({ includeLogs: true });
    s.dispatch(Renamed({ name: 'grace' }));
    s.dispatch(Spent({ tokens: 3 }));
    s.dispatch(Said({ text: 'again' }));
    s.dispatch(Flagged({ flag: 'x' }));
    const s2 = s.snapshot({ includeLogs: true });
    const { modified } = Snapshot.diff(s1, s2);
    const profile = modified['profile'];
    expect(profile?.kind).toBe('fields');
    // The pair, as the seed prints it: (before, after).
    expect([profile?.before, profile?.after]).toEqual([{ name: 'ada', tokens: 0 }, { name: 'grace', tokens: 3 }]);
    expect(profile).toMatchObject({ set: { name: 'grace', tokens: 3 }, previous: { name: 'ada', tokens: 0 } });
    // A state slice whose value is not an object: the pair is its latest item before and after.
    expect(modified['flags']).toMatchObject({ policy: 'state', before: undefined, after: 'x' });
    expect(Object.hasOwn(modified['flags'] ?? {}, 'before')).toBe(true);
    // A log slice has no pair: it grows, its value is the whole sequence.
    expect(modified['messages']).toEqual({ kind: 'log', policy: 'log', evicted: [], appended: [{ text: 'again' }] });
    // The pair is plain data that survives JSON, and apply ignores it.
    const d = Snapshot.diff(s1, s2);
    expect(JSON.parse(JSON.stringify(d)).modified.profile.before).toEqual({ name: 'ada', tokens: 0 });
    expect(Snapshot.apply(s1, d).slices['profile']?.items).toEqual(s2.slices['profile']?.items);
  });

  it('is small enough to print for a 10,000-item slice with one change, and compares JSON-read snapshots structurally', () => {
    const Big = defineSlice('big', { policy: 'log', schema: z.object({ n: z.number() }), reducers: ({ on }) => [on(Spent, (_v, e) => append({ n: e.payload.tokens }))] });
    const s = createSession({ slices: [Big] });
    for (let n = 0; n < 10_000; n++) s.dispatch(Spent({ tokens: n }));
    const before = s.snapshot({ includeLogs: true });
    s.dispatch(Spent({ tokens: -1 }));
    const after = s.snapshot({ includeLogs: true });
    const d = Snapshot.diff(before, after);
    expect(JSON.stringify(d).length).toBeLessThan(200);
    expect(d.modified['big']).toEqual({ kind: 'log', policy: 'log', evicted: [], appended: [{ n: -1 }] });
    const fromJson = Snapshot.diff(snapshotFromJSON(JSON.stringify(before), [Big]), snapshotFromJSON(JSON.stringify(after), [Big]));
    expect(fromJson.modified).toEqual(d.modified);
  });

  it('falls back to all items when the change has no log or fields shape; apply refuses a diff that does not fit', () => {
    const s = session();
    s.dispatch(Flagged({ flag: 'a' }));
    s.dispatch(Flagged({ flag: 'b' }));
    const before = s.snapshot();
    s.restore(snapshotFromJSON({ format: 'rxslice.snapshot', formatVersion: 3, seq: 0, at: 0, slices: { flags: { policy: 'state', items: ['c', 'a', 'd'] } } }, SLICES), { slices: [Flags] });
    const d = Snapshot.diff(before, s.snapshot());
    expect(d.modified['flags']).toEqual({ kind: 'items', policy: 'state', items: ['c', 'a', 'd'], before: 'b', after: 'd' });
    expect(() => Snapshot.apply(s.snapshot({ include: [Profile] }), d)).toThrow(/modifies slice "flags", which the snapshot does not hold/);
    const tooMany = { ...d, modified: { flags: { kind: 'log' as const, policy: 'state' as const, evicted: [1, 2, 3], appended: [] } } };
    expect(() => Snapshot.apply(before, tooMany)).toThrow(/evicts 3 items, the snapshot holds 2/);
    expect(() => Snapshot.diff(before, null as never)).toThrow(SnapshotOperationError);
  });

  it('apply(before, diff(before, after)) holds the items of after, for any two item lists (property)', () => {
    const item = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.record({ a: fc.integer({ min: 0, max: 2 }), b: fc.option(fc.string({ maxLength: 2 }), { nil: undefined }) }, { requiredKeys: ['a'] }));
    const items = fc.array(item, { maxLength: 8 });
    const snap = (xs: readonly unknown[][], policy: 'log' | 'state') =>
      snapshotFromJSON({ format: 'rxslice.snapshot', formatVersion: 3, seq: 0, at: 0, slices: Object.fromEntries(xs.map((x, i) => [`s${i}`, { policy, items: x }])) }, [0, 1, 2].map((i) => defineSlice(`s${i}`, { policy, reducers: () => [] })));
    fc.assert(
      fc.property(fc.constantFrom('log' as const, 'state' as const), fc.array(items, { minLength: 1, maxLength: 3 }), fc.array(items, { minLength: 1, maxLength: 3 }), (policy, xs, ys) => {
        const before = snap(xs, policy);
        const after = snap(ys, policy);
        const d = Snapshot.diff(before, after);
        const applied = Snapshot.apply(before, d);
        expect(names(applied).sort()).toEqual(names(after).sort());
        for (const name of names(after)) expect(applied.slices[name]?.items).toEqual(after.slices[name]?.items);
        expect(JSON.parse(JSON.stringify(d))).toEqual(d);
      }),
      { numRuns: 500 },
    );
  });
});
