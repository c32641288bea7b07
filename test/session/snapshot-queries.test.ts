// session.findSnapshots and session.snapshotLineage (issue 24, item 3; issue 33, item 8): the
// session answers from the snapshot store it was given (createSession({ snapshotStore })), which
// takes every snapshot the session makes, or from its own bounded catalogue.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualTimeScheduler } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, NoSnapshotStoreError, Snapshot } from '../../src/index';
import { createSnapshotStore } from '../../src/snapshot-store/index';
import { snapshotDirectory } from '../../src/jsonl/index';

const StepAdded = defineEvent('plan/stepAdded', z.object({ step: z.string() }));
const Plan = defineSlice('plan', { policy: 'state', schema: z.string(), reducers: ({ on }) => [on(StepAdded, (_v, e) => append(e.payload.step))] });
const Notes = defineSlice('notes', { policy: 'log', schema: z.string() });

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A session on a virtual clock with a memory snapshot store; `advance(ms)` moves the clock. */
function setup(store = createSnapshotStore()) {
  const scheduler = new VirtualTimeScheduler();
  const session = createSession({ slices: [Plan, Notes], scheduler, snapshotStore: store });
  const advance = (ms: number) => {
    scheduler.schedule(() => undefined, ms);
    scheduler.flush();
  };
  return { session, store, advance };
}

describe('session.snapshotLineage', () => {
  it('lists the lineage oldest first, ending with the snapshot (v1 → v2 → v3 through restores)', async () => {
    const { session, store } = setup();
    session.dispatch(StepAdded({ step: 'a' }));
    const v1 = session.snapshot({ tag: 'v1' });
    await store.save(v1);
    session.restore(v1);
    session.dispatch(StepAdded({ step: 'b' }));
    const v2 = session.snapshot({ tag: 'v2' });
    await store.save(v2);
    session.restore(v2);
    const v3 = session.snapshot({ tag: 'v3' });
    await store.save(v3);
    const lineage = await session.snapshotLineage(v3);
    expect(lineage.map((i) => i.tag)).toEqual(['v1', 'v2', 'v3']);
    expect(lineage.map((i) => i.id)).toEqual([v1.id, v2.id, v3.id]);
    expect(lineage.at(-1)?.parents).toEqual([v2.id]);
    // By id as well; a root is its own lineage.
    expect((await session.snapshotLineage(v3.id)).map((i) => i.tag)).toEqual(['v1', 'v2', 'v3']);
    expect((await session.snapshotLineage(v1)).map((i) => i.tag)).toEqual(['v1']);
  });

  it('ends with a snapshot the store does not hold (here a merge), after the stored lineage of its first parent', async () => {
    const { session, store } = setup();
    const root = session.snapshot({ tag: 'root' });
    session.restore(root);
    session.dispatch(StepAdded({ step: 'x' }));
    const draft = Snapshot.merge(session.snapshot({ include: [Plan], tag: 'draft' }), session.snapshot({ include: [Notes] }));
    await store.forget({ keepLast: 1, keepTagged: 'root' }); // drops the draft's first parent
    const lineage = await session.snapshotLineage(draft);
    expect(lineage.map((i) => [i.id, i.saved])).toEqual([[draft.id, 0]]);
    expect(lineage[0]).toEqual({ id: draft.id, tag: draft.tag, seq: draft.seq, at: draft.at, parents: draft.parents, slices: ['plan', 'notes'], saved: 0 });
    // Every snapshot the session takes is saved: a snapshot never saved by hand has its lineage.
    const next = session.snapshot({ tag: 'next' });
    expect((await session.snapshotLineage(next)).map((i) => [i.tag, i.saved > 0])).toEqual([
      ['root', true],
      ['next', true],
    ]);
    // A fresh session's unsaved snapshot is its own lineage.
    expect((await setup(store).session.snapshotLineage(setup().session.snapshot())).length).toBe(1);
  });

  it("follows a merge's first parent and keeps the others in its parents", async () => {
    const { session, store } = setup();
    const a = session.snapshot({ include: [Plan], tag: 'a' });
    const b = session.snapshot({ include: [Notes], tag: 'b' });
    const merged = Snapshot.merge(a, b);
    await store.save(a);
    await store.save(b);
    await store.save(merged);
    const lineage = await session.snapshotLineage(merged);
    expect(lineage.map((i) => i.id)).toEqual([a.id, merged.id]);
    expect(lineage[1]?.parents).toEqual([a.id, b.id]);
  });

  it('rejects an id the store does not hold, and something that is no snapshot', async () => {
    const { session } = setup();
    await expect(session.snapshotLineage('nope')).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND' });
    await expect(session.snapshotLineage(null as never)).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT' });
    await expect(session.snapshotLineage({ slices: {} } as never)).rejects.toThrow(/has no id/);
  });

  it('works over a directory of snapshot files (rxslice/storage/jsonl)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-lineage-'));
    dirs.push(dir);
    const { session, store } = setup(createSnapshotStore({ storage: snapshotDirectory(dir, { slices: [Plan, Notes] }) }));
    const v1 = session.snapshot({ tag: 'v1' });
    await store.save(v1);
    session.restore(v1);
    const v2 = session.snapshot({ tag: 'v2' });
    await store.save(v2);
    expect((await session.snapshotLineage(v2)).map((i) => i.tag)).toEqual(['v1', 'v2']);
  });
});

describe('session.findSnapshots', () => {
  it('finds by tag glob, capture time and slice, newest first', async () => {
    const { session, store, advance } = setup();
    advance(100);
    await store.save(session.snapshot({ tag: 'tool:search' }));
    advance(100);
    const cutoff = session.scheduler.now();
    advance(100);
    await store.save(session.snapshot({ tag: 'tool:edit', includeLogs: true }));
    await store.save(session.snapshot({ tag: 'debug:1', includeLogs: true }));
    await store.save(session.snapshot({ include: [Notes], tag: 'tool:notes' }));
    const tags = async (query: Parameters<typeof session.findSnapshots>[0]) => (await session.findSnapshots(query)).map((i) => i.tag);
    expect(await tags({ tag: 'tool:*' })).toEqual(['tool:notes', 'tool:edit', 'tool:search']);
    expect(await tags({ tag: 'tool:*', createdAfter: cutoff })).toEqual(['tool:notes', 'tool:edit']);
    expect(await tags({ tag: 'tool:*', createdAfter: new Date(cutoff), containsSlice: Plan })).toEqual(['tool:edit']);
    expect(await tags({ containsSlice: 'notes' })).toEqual(['tool:notes', 'debug:1', 'tool:edit']);
    expect(await tags({ tag: '!tool:*' })).toEqual(['debug:1']);
    expect(await tags(undefined)).toHaveLength(4);
  });

  it('sees a save called just before it (the store runs operations in call order)', async () => {
    const { session, store } = setup();
    void store.save(session.snapshot({ tag: 'tool:x' }));
    expect((await session.findSnapshots({ tag: 'tool:*' })).map((i) => i.tag)).toEqual(['tool:x']);
  });

  it('rejects a malformed query with the store error', async () => {
    const { session } = setup();
    await expect(session.findSnapshots({ tag: '' })).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_QUERY' });
    await expect(session.findSnapshots({ createdAfter: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_QUERY' });
  });
});

describe('a session made with snapshotCatalogue: false and no store', () => {
  it('rejects findSnapshots and snapshotLineage with NoSnapshotStoreError, which says how to get a catalogue', async () => {
    const session = createSession({ slices: [Plan], snapshotCatalogue: false });
    await expect(session.findSnapshots({ tag: 'tool:*' })).rejects.toBeInstanceOf(NoSnapshotStoreError);
    await expect(session.snapshotLineage(session.snapshot())).rejects.toMatchObject({ code: 'NO_SNAPSHOT_STORE' });
    await expect(session.findSnapshots()).rejects.toThrow(/snapshotCatalogue: false.*createSession\(\{ snapshotStore: createSnapshotStore\(\) \}\)/);
  });

  it('refuses a snapshotStore option that is not a store, before anything is created', () => {
    expect(() => createSession({ slices: [Plan], snapshotStore: {} as never })).toThrow(expect.objectContaining({ code: 'INVALID_SNAPSHOT_STORE' }));
    expect(() => createSession({ slices: [Plan], snapshotStore: null as never })).toThrow(/must be a snapshot store/);
  });
});
