import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice } from '../../src/index';
import { snapshotCaptures } from '../../src/snapshots/snapshot';

/**
 * A snapshot taken when no slice changed since the last snapshot of the same plan (taken, or
 * restored whole) shares that snapshot's list of captures instead of allocating one: a snapshot
 * + restore loop then allocates less per iteration (issue 36: fewer scavenges fall into a new
 * session's first calls). Sharing must never show: every snapshot keeps its own versions, and a
 * change after the restore gives the next snapshot a list of its own.
 */
const Added = defineEvent('sharing/added', z.object({ n: z.number() }));
const Other = defineEvent('sharing/other');
const A = defineSlice('a', {
  policy: 'state',
  schema: z.number(),
  initial: [1],
  reducers: ({ on }) => [on(Added, (_view, e) => append(e.payload.n))],
});
const B = defineSlice('b', {
  policy: 'state',
  schema: z.number(),
  initial: [10],
  reducers: ({ on }) => [on(Other, (view) => append(view.size + 10))],
});

describe('capture lists shared between snapshots', () => {
  it('a snapshot right after a whole restore shares the restored snapshot’s list, with its own versions', () => {
    const session = createSession({ slices: [A, B] });
    const first = session.snapshot();
    session.dispatch(Added({ n: 2 }));
    const second = session.snapshot();
    session.restore(first);
    const after = session.snapshot();
    expect(snapshotCaptures(after)).toBe(snapshotCaptures(first));
    expect(after.slices['a']?.items).toEqual([1]);
    // Versions are the slices' own at the time of each snapshot, not the restored one's.
    expect(after.slices['a']?.version).toBe(session.slice(A).version);
    expect(after.slices['a']?.version).toBeGreaterThan(first.slices['a']?.version ?? Infinity);
    session.restore(second);
    expect(snapshotCaptures(session.snapshot())).toBe(snapshotCaptures(second));
    expect(session.slice(A).all()).toEqual([1, 2]);
  });

  it('two snapshots with no change between share one list; a change gives the next its own, the earlier untouched', () => {
    const session = createSession({ slices: [A, B] });
    const s1 = session.snapshot();
    const s2 = session.snapshot();
    expect(snapshotCaptures(s2)).toBe(snapshotCaptures(s1));
    const before = [...(snapshotCaptures(s1) ?? [])];
    session.dispatch(Other());
    const s3 = session.snapshot();
    expect(snapshotCaptures(s3)).not.toBe(snapshotCaptures(s1));
    expect(snapshotCaptures(s1)).toEqual(before);
    // The unchanged slice's capture is the same object; the changed one's is new.
    expect(snapshotCaptures(s3)?.[0]).toBe(before[0]);
    expect(snapshotCaptures(s3)?.[1]).not.toBe(before[1]);
    expect(s1.slices['b']?.items).toEqual([10]);
    expect(s3.slices['b']?.items).toEqual([10, 11]);
    session.restore(s1);
    expect(session.slice(B).all()).toEqual([10]);
  });

  it('a session with no state slice snapshots, serialises and restores an empty snapshot, twice alike', () => {
    const Log = defineSlice('log', { policy: 'log', schema: z.number() });
    const session = createSession({ slices: [Log] });
    const s1 = session.snapshot();
    const s2 = session.snapshot();
    expect(snapshotCaptures(s1)).toEqual([]);
    expect(snapshotCaptures(s2)).toBe(snapshotCaptures(s1));
    expect(JSON.parse(JSON.stringify(s2)).slices).toEqual({});
    session.restore(s1);
    expect(session.snapshot().slices).toEqual({});
  });

  it('guard: versions read back right when snapshots share their version differences (slices at different versions, restores and changes between)', () => {
    const session = createSession({ slices: [A, B] });
    session.dispatch(Added({ n: 2 }));
    session.dispatch(Added({ n: 3 }));
    session.dispatch(Other());
    const versions = () => ({ a: session.slice(A).version, b: session.slice(B).version });
    const taken: { snapshot: ReturnType<typeof session.snapshot>; expected: { a: number; b: number } }[] = [];
    const take = () => taken.push({ snapshot: session.snapshot(), expected: versions() });
    take();
    session.dispatch(Other());
    take();
    for (let k = 0; k < 4; k++) {
      session.restore((taken[k % 2] as (typeof taken)[number]).snapshot);
      take();
    }
    session.dispatch(Added({ n: 4 }));
    take();
    session.restore((taken[0] as (typeof taken)[number]).snapshot);
    take();
    expect(new Set(taken.map((t) => `${t.expected.a}-${t.expected.b}`)).size).toBeGreaterThan(5);
    for (const { snapshot, expected } of taken) expect({ a: snapshot.slices['a']?.version, b: snapshot.slices['b']?.version }).toEqual(expected);
  });

  it('restoring one snapshot again publishes the same frozen restored event (no event per restore); other names or snapshots get their own', () => {
    const session = createSession({ slices: [A, B] });
    const first = session.snapshot();
    session.dispatch(Added({ n: 2 }));
    const second = session.snapshot();
    const seen: { seq: number; event: unknown }[] = [];
    session.committed$.subscribe((env) => {
      if (env.event.type === 'rxslice.session.restored') seen.push({ seq: env.seq, event: env.event });
    });
    session.restore(first);
    session.restore(second);
    session.restore(first);
    session.restore(first, { slices: ['a'] });
    const [r1, r2, r3, r4] = seen;
    expect(r3?.event).toBe(r1?.event);
    expect(r2?.event).not.toBe(r1?.event);
    expect(r4?.event).not.toBe(r1?.event);
    expect(Object.isFrozen(r1?.event)).toBe(true);
    expect(Object.isFrozen((r1?.event as { payload: object }).payload)).toBe(true);
    expect(new Set(seen.map((r) => r.seq)).size).toBe(4);
    expect(r1?.event).toEqual({ type: 'rxslice.session.restored', payload: { slices: ['a', 'b'], fromSeq: first.seq, tag: undefined, snapshotId: first.id } });
    expect((r4?.event as { payload: { slices: string[] } }).payload.slices).toEqual(['a']);
    expect(session.slice(A).all()).toEqual([1]);
  });
  it('guard: every snapshot reads the slices as they are, whatever changed since the last one (dispatches, whole and partial restores, restores of other plans, transactions, seeds, resets)', () => {
    const session = createSession({ slices: [A, B] });
    const taken: ReturnType<typeof session.snapshot>[] = [session.snapshot(), session.snapshot({ include: ['a'] })];
    let rng = 7;
    const next = (n: number): number => {
      rng = (rng * 1103515245 + 12345) % 2147483648;
      return rng % n;
    };
    const steps: (() => void)[] = [
      () => session.dispatch(Added({ n: next(100) })),
      () => session.dispatch(Other()),
      () => session.restore(taken[next(taken.length)] as (typeof taken)[number]),
      () => session.restore(taken[next(taken.length)] as (typeof taken)[number], { slices: ['b'] }),
      () => session.restore(taken[0] as (typeof taken)[number]),
      () => taken.push(session.snapshot({ include: ['a'] })),
      () => expect(() => session.transaction(() => {
        session.dispatch(Added({ n: -1 }));
        throw new Error('roll back');
      })).toThrow('roll back'),
      () => session.slice(B).seed([next(50)]),
      () => session.reset(),
      () => undefined,
    ];
    for (let k = 0; k < 400; k++) {
      (steps[next(steps.length)] as () => void)();
      const snapshot = session.snapshot();
      taken.push(snapshot);
      for (const [name, def] of [['a', A], ['b', B]] as const) {
        expect(snapshot.slices[name]?.items).toBe(session.slice(def).all());
        expect(snapshot.slices[name]?.version).toBe(session.slice(def).version);
      }
      expect(snapshot.seq).toBe(session.lastSeq);
    }
  });
});
