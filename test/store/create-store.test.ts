import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  createStore,
  defineComputed,
  defineEvent,
  defineSlice,
  findSnapshots,
  InvalidSnapshotCatalogueOptionError,
  NoSnapshotStoreError,
  restoreSnapshot,
  runEpic,
  snapshotLineage,
  takeSnapshot,
  transaction,
  UnknownSliceError,
  type CommittedEnvelope,
  type RxSliceError,
  type SnapshotInfo,
} from '../../src/index';
import { flightRecorder, jsonl, readRecording } from '../../src/jsonl/index';
import { SESSION_INTERNALS } from '../../src/session/internals';
import { filter, map } from 'rxjs';

const StepAdded = defineEvent('plan/stepAdded', z.object({ step: z.string() }));
const Noted = defineEvent('plan/noted', z.object({ text: z.string() }));
const Plan = defineSlice('plan', {
  policy: 'state',
  schema: z.object({ step: z.string() }),
  reducers: ({ on }) => [on(StepAdded, (_v, e) => append(e.payload))],
});
const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload)), on(StepAdded, (_v, e) => append({ text: `added ${e.payload.step}` }))],
});
const Steps = defineComputed('steps', [Plan], (plan) => plan.length);

/** Runs `script` on a store (through the functions) and on a session (through its methods); both must tell the same story. */
const kinds = [
  {
    kind: 'store + functions',
    open: () => createStore({ slices: [Plan, Notes] }),
    snapshot: (s: any, o?: any) => takeSnapshot(s, o),
    restore: (s: any, snap: any, o?: any) => restoreSnapshot(s, snap, o),
    transaction: (s: any, fn: () => unknown) => transaction(s, fn),
    find: (s: any, q?: any): Promise<SnapshotInfo[]> => findSnapshots(s, q),
    lineage: (s: any, x: any): Promise<SnapshotInfo[]> => snapshotLineage(s, x),
  },
  {
    kind: 'session + methods',
    open: () => createSession({ slices: [Plan, Notes] }),
    snapshot: (s: any, o?: any) => s.snapshot(o),
    restore: (s: any, snap: any, o?: any) => s.restore(snap, o),
    transaction: (s: any, fn: () => unknown) => s.transaction(fn),
    find: (s: any, q?: any): Promise<SnapshotInfo[]> => s.findSnapshots(q),
    lineage: (s: any, x: any): Promise<SnapshotInfo[]> => s.snapshotLineage(x),
  },
] as const;

/** What one script observes: state, audited events and answers, for comparing the two kinds. */
async function script(k: (typeof kinds)[number]) {
  const s = k.open();
  const committed: CommittedEnvelope[] = [];
  s.committed$.subscribe((c) => committed.push(c));
  const steps: number[] = [];
  s.computed(Steps).value$.subscribe((n) => steps.push(n));
  s.dispatch(StepAdded({ step: 'a' }));
  const v1 = k.snapshot(s, { tag: 'v1' });
  s.dispatch(StepAdded({ step: 'b' }));
  s.dispatch(Noted({ text: 'kept' }));
  k.restore(s, v1);
  const afterRestore = { plan: s.read(Plan), notes: s.read(Notes).length };
  const v2 = k.snapshot(s, { tag: 'v2' });
  let thrown: unknown;
  try {
    k.transaction(s, () => {
      s.dispatch(StepAdded({ step: 'risky' }));
      throw new Error('tool failed');
    });
  } catch (error) {
    thrown = error;
  }
  const afterRollback = { plan: s.read(Plan), notes: s.read(Notes).map((n) => n.text) };
  const kept = k.transaction(s, () => {
    s.dispatch(StepAdded({ step: 'c' }));
    return 'done';
  });
  const partial = k.snapshot(s, { include: [Plan] });
  let unknown: unknown;
  try {
    k.restore(s, v2, { slices: ['nope'] });
  } catch (error) {
    unknown = error;
  }
  const found = (await k.find(s, { tag: 'v*' })).map((i) => i.tag);
  const lineage = (await k.lineage(s, v2)).map((i) => i.tag);
  const result = {
    afterRestore,
    thrown: (thrown as Error).message,
    afterRollback,
    kept,
    plan: s.read(Plan),
    partial: Object.keys(partial.slices),
    unknown: (unknown as RxSliceError).name,
    found,
    lineage,
    v2Parents: v2.parents.length,
    steps,
    restored: committed.filter((c) => c.event.type === 'rxslice.session.restored').map((c) => ({ seq: c.seq, payload: { ...(c.event.payload as { tag?: string }), snapshotId: typeof (c.event.payload as { snapshotId?: unknown }).snapshotId } })),
    types: committed.map((c) => c.event.type),
  };
  s.dispose();
  return result;
}

describe('createStore: a session without the snapshot methods and epics', () => {
  it('has no snapshot, restore, transaction, findSnapshots, snapshotLineage or run, and dispatches, batches, computes and subscribes as a session', () => {
    const store = createStore({ slices: [Plan, Notes] });
    for (const method of ['snapshot', 'restore', 'transaction', 'findSnapshots', 'snapshotLineage', 'run']) expect((store as any)[method], method).toBeUndefined();
    let told = 0;
    store.subscribe(() => told++);
    store.batch(() => {
      store.dispatch(StepAdded({ step: 'a' }));
      store.dispatch(StepAdded({ step: 'b' }));
    });
    expect(told).toBe(1);
    expect(store.computed(Steps).latest()).toBe(2);
    expect(store.getSnapshot()).toEqual({ plan: [{ step: 'a' }, { step: 'b' }], notes: [{ text: 'added a' }, { text: 'added b' }] });
    store.dispose();
  });

  it('the snapshot functions on a store answer what the methods answer on a session: restore, rollback on throw, audited restored events, find and lineage', async () => {
    const [onStore, onSession] = [await script(kinds[0]), await script(kinds[1])];
    expect(onStore).toEqual(onSession);
    // and what they answer is right, not merely equal
    expect(onStore.afterRestore).toEqual({ plan: [{ step: 'a' }], notes: 3 });
    expect(onStore.afterRollback).toEqual({ plan: [{ step: 'a' }], notes: ['added a', 'added b', 'kept', 'added risky'] });
    expect(onStore.thrown).toBe('tool failed');
    expect(onStore.kept).toBe('done');
    expect(onStore.plan).toEqual([{ step: 'a' }, { step: 'c' }]);
    expect(onStore.partial).toEqual(['plan']);
    expect(onStore.unknown).toBe('UnknownSliceError');
    expect(onStore.found).toEqual(['v2', 'v1']);
    expect(onStore.lineage).toEqual(['v1', 'v2']);
    expect(onStore.restored).toHaveLength(2);
    expect(onStore.restored[0]).toEqual({ seq: 4, payload: { slices: ['plan'], fromSeq: 1, tag: 'v1', snapshotId: 'string' } });
    expect(onStore.restored[1]?.payload.tag).toBe('rxslice.transaction');
  });

  it('the functions work on a session too, and on it they share its methods\' catalogue and lineage', async () => {
    const session = createSession({ slices: [Plan] });
    const v1 = session.snapshot({ tag: 'v1' });
    restoreSnapshot(session, v1);
    const v2 = takeSnapshot(session, { tag: 'v2' });
    expect(v2.parents).toEqual([v1.id]);
    expect((await session.findSnapshots()).map((i) => i.tag)).toEqual(['v2', 'v1']);
    expect((await snapshotLineage(session, v2)).map((i) => i.tag)).toEqual(['v1', 'v2']);
    session.dispose();
  });

  it('links the snapshot layer on the first call, once, and reads the snapshot options then', async () => {
    const store = createStore({ slices: [Plan], snapshotCatalogue: false });
    expect(() => store[SESSION_INTERNALS].captureSnapshot()).toThrow(/takeSnapshot/);
    takeSnapshot(store);
    expect(store[SESSION_INTERNALS].captureSnapshot().slices.plan?.items).toEqual([]);
    await expect(findSnapshots(store)).rejects.toBeInstanceOf(NoSnapshotStoreError);
    store.dispose();
    const bad = createStore({ slices: [Plan], snapshotCatalogue: { keepLast: 0 } });
    expect(() => takeSnapshot(bad)).toThrow(InvalidSnapshotCatalogueOptionError);
    bad.dispatch(StepAdded({ step: 'still usable' }));
    bad.dispose();
    expect(() => createSession({ slices: [Plan], snapshotCatalogue: { keepLast: 0 } })).toThrow(InvalidSnapshotCatalogueOptionError);
  });

  it('refuses what is not a store, and a slice it does not have, with nothing changed', () => {
    expect(() => takeSnapshot({} as never)).toThrow(/takeSnapshot|snapshot functions take a session from createSession or createStore/);
    const store = createStore({ slices: [Plan] });
    expect(() => takeSnapshot(store, { include: ['nope'] })).toThrow(UnknownSliceError);
    expect(store.lastSeq).toBe(0);
    store.dispose();
  });

  it('runs epics through runEpic, with the store\'s events', () => {
    const store = createStore({ slices: [Plan, Notes], events: [Noted] });
    const handle = runEpic(store, (events$) =>
      events$.pipe(
        filter((env) => StepAdded.match(env.event)),
        map((env) => Noted({ text: `epic saw ${(env.event.payload as { step: string }).step}` })),
      ),
    );
    store.dispatch(StepAdded({ step: 'x' }));
    expect(store.read(Notes).map((n) => n.text)).toEqual(['added x', 'epic saw x']);
    handle.stop();
    store.dispose();
    expect(() => createStore({ slices: [Plan], epics: [() => undefined as never] } as never)).toThrow(/createStore takes no epics: start them with runEpic/);
  });
});

describe('a store on JSONL storage reopens from what is stored', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('journal and base file (compacted), a restore among the records: the reopened store holds the state and continues the seq', () => {
    dir = mkdtempSync(join(tmpdir(), 'rxslice-store-'));
    const open = () => createStore({ slices: [Plan, Notes], storage: jsonl({ dir: dir as string, fsync: 'never', compactBytes: 256 }) });
    const first = open();
    for (let i = 0; i < 20; i++) first.dispatch(StepAdded({ step: `s${i}` }));
    const at20 = takeSnapshot(first);
    first.dispatch(StepAdded({ step: 'undone' }));
    restoreSnapshot(first, at20);
    first.dispatch(Noted({ text: 'last' }));
    const expected = { plan: first.read(Plan), notes: first.read(Notes), lastSeq: first.lastSeq };
    first.dispose();
    expect(readdirSync(dir).some((f) => f.includes('base')), `a base file in ${readdirSync(dir).join(', ')}`).toBe(true);

    const reopened = open();
    expect({ plan: reopened.read(Plan), notes: reopened.read(Notes), lastSeq: reopened.lastSeq }).toEqual(expected);
    expect(expected.plan).toHaveLength(20);
    reopened.dispatch(StepAdded({ step: 'next' }));
    expect(reopened.lastSeq).toBe(expected.lastSeq + 1);
    // the reopened store restores and snapshots as before (the layer links into it now)
    const before = takeSnapshot(reopened);
    reopened.dispatch(StepAdded({ step: 'again' }));
    restoreSnapshot(reopened, before);
    expect(reopened.read(Plan).at(-1)).toEqual({ step: 'next' });
    reopened.dispose();
    expect(existsSync(dir)).toBe(true);
  });
});

describe('the library\'s own users of snapshots work on a store (they link the layer)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('the flight recorder records a store (its base snapshots through the layer), and time travel restores into a store', () => {
    dir = mkdtempSync(join(tmpdir(), 'rxslice-store-rec-'));
    const file = join(dir, 'run.jsonl');
    const store = createStore({ slices: [Plan, Notes] });
    const recorder = flightRecorder(store, { file, snapshotEvery: 2 });
    const states = new Map<number, unknown>();
    for (const step of ['a', 'b', 'c', 'd', 'e']) {
      store.dispatch(StepAdded({ step }));
      states.set(store.lastSeq, { plan: store.read(Plan), notes: store.read(Notes) });
    }
    recorder.close();
    // the recorder's captures are the library's own: not in the store's catalogue
    return findSnapshots(store).then((found) => {
      expect(found).toEqual([]);
      const recording = readRecording(file, { slices: [Plan, Notes] });
      for (const [seq, state] of states) expect([seq, recording.stateAt(seq).toJSON().slices.plan?.items]).toEqual([seq, (state as { plan: unknown }).plan]);
      const other = createStore({ slices: [Plan, Notes] });
      recording.restoreTo(other, 3);
      expect(other.read(Plan)).toEqual([{ step: 'a' }, { step: 'b' }, { step: 'c' }]);
      other.dispose();
      store.dispose();
    });
  });
});
