// Issue 33, item 8: session.findSnapshots / session.snapshotLineage work out of the box. A session
// without a snapshot store keeps a bounded catalogue of the snapshots it takes; a store, when
// given, takes every one of them instead.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  InvalidSnapshotCatalogueOptionError,
  NoSnapshotStoreError,
  SnapshotSaveError,
  snapshotFromJSON,
  type RxSliceError,
  type SnapshotCatalogueOptions,
} from '../../src/index';
import { SESSION_INTERNALS } from '../../src/session/internals';
import { createSnapshotStore, type SnapshotStore } from '../../src/snapshot-store/index';

const StepAdded = defineEvent('plan/stepAdded', z.object({ step: z.string() }));
const NoteTaken = defineEvent('notes/taken', z.object({ text: z.string() }));
const Plan = defineSlice('plan', { policy: 'state', schema: z.string(), reducers: ({ on }) => [on(StepAdded, (_v, e) => append(e.payload.step))] });
const Notes = defineSlice('notes', { policy: 'log', schema: z.string(), reducers: ({ on }) => [on(NoteTaken, (_v, e) => append(e.payload.text))] });

/** A session on a virtual clock; `advance(ms)` moves the clock. */
function setup(options: { snapshotCatalogue?: SnapshotCatalogueOptions | false; snapshotStore?: SnapshotStore } = {}) {
  const scheduler = new VirtualTimeScheduler();
  const session = createSession({ slices: [Plan, Notes], scheduler, ...options });
  const advance = (ms: number) => {
    scheduler.schedule(() => undefined, ms);
    scheduler.flush();
  };
  return { session, advance };
}

describe("the design document's calls, on a session made with no snapshot option", () => {
  it('session.findSnapshots({ tag: "tool:*", createdAfter, containsSlice: Plan }) finds the snapshots the session took, newest first', async () => {
    const { session, advance } = setup();
    session.dispatch(StepAdded({ step: 'search the docs' }));
    session.snapshot({ tag: 'tool:search' });
    advance(100);
    const createdAfter = session.scheduler.now();
    advance(100);
    session.dispatch(StepAdded({ step: 'edit the file' }));
    const edit = session.snapshot({ tag: 'tool:edit' });
    session.snapshot({ tag: 'debug:1' });
    session.snapshot({ tag: 'tool:notes', include: [Notes] });
    session.snapshot();
    const found = await session.findSnapshots({ tag: 'tool:*', createdAfter, containsSlice: Plan });
    expect(found.map((i) => i.tag)).toEqual(['tool:edit']);
    expect(found[0]).toEqual({ id: edit.id, tag: 'tool:edit', seq: 2, at: edit.at, parents: [], slices: ['plan'], saved: 2 });
    expect((await session.findSnapshots({ tag: 'tool:*' })).map((i) => i.tag)).toEqual(['tool:notes', 'tool:edit', 'tool:search']);
    expect((await session.findSnapshots({ tag: '{tool,debug}:*', limit: 2 })).map((i) => i.tag)).toEqual(['tool:notes', 'debug:1']);
    expect(await session.findSnapshots()).toHaveLength(5);
  });

  it('session.snapshotLineage(current_snapshot) lists the snapshots it was restored from, oldest first', async () => {
    const { session } = setup();
    session.dispatch(StepAdded({ step: 'a' }));
    const v1 = session.snapshot({ tag: 'v1' });
    session.restore(v1);
    session.dispatch(StepAdded({ step: 'b' }));
    const v2 = session.snapshot({ tag: 'v2' });
    session.restore(v2);
    const current = session.snapshot({ tag: 'v3' });
    expect((await session.snapshotLineage(current)).map((i) => i.tag)).toEqual(['v1', 'v2', 'v3']);
    expect((await session.snapshotLineage(current.id)).map((i) => i.id)).toEqual([v1.id, v2.id, current.id]);
  });
});

describe('retention', () => {
  it('keeps the last 100 snapshots by default; the oldest leave first', async () => {
    const { session } = setup();
    const taken = Array.from({ length: 150 }, (_, i) => session.snapshot({ tag: `n:${i}` }));
    const found = await session.findSnapshots();
    expect(found).toHaveLength(100);
    expect(found.map((i) => i.id)).toEqual(taken.slice(50).reverse().map((s) => s.id));
    expect(found.map((i) => i.saved)).toEqual(Array.from({ length: 100 }, (_, i) => 150 - i));
    await expect(session.snapshotLineage(taken[0]!.id)).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND', message: expect.stringMatching(/keeps the last 100/) });
  });

  it('keeps { keepLast } snapshots; a lineage stops at a parent no longer kept', async () => {
    const { session } = setup({ snapshotCatalogue: { keepLast: 2 } });
    const v1 = session.snapshot({ tag: 'v1' });
    session.restore(v1);
    const v2 = session.snapshot({ tag: 'v2' });
    session.restore(v2);
    const v3 = session.snapshot({ tag: 'v3' });
    expect((await session.findSnapshots()).map((i) => i.tag)).toEqual(['v3', 'v2']);
    expect((await session.snapshotLineage(v3)).map((i) => i.tag)).toEqual(['v2', 'v3']);
  });

  it('skips snapshots older than { maxAgeMs } (scheduler time) at query time', async () => {
    const { session, advance } = setup({ snapshotCatalogue: { maxAgeMs: 1_000 } });
    session.snapshot({ tag: 'old' });
    advance(600);
    session.snapshot({ tag: 'new' });
    expect((await session.findSnapshots()).map((i) => i.tag)).toEqual(['new', 'old']);
    advance(600);
    expect((await session.findSnapshots()).map((i) => i.tag)).toEqual(['new']);
  });

  it('refuses malformed options at creation, and a catalogue beside a store', () => {
    const bad: unknown[] = [{ keepLast: 0 }, { keepLast: 1.5 }, { maxAgeMs: 0 }, { maxAgeMs: Number.NaN }, 'all', null, []];
    for (const snapshotCatalogue of bad) {
      expect(() => createSession({ slices: [Plan], snapshotCatalogue: snapshotCatalogue as never })).toThrow(InvalidSnapshotCatalogueOptionError);
    }
    expect(() => createSession({ slices: [Plan], snapshotCatalogue: { keepLast: 5 }, snapshotStore: createSnapshotStore() })).toThrow(
      expect.objectContaining({ code: 'INVALID_SNAPSHOT_CATALOGUE', message: expect.stringMatching(/either snapshotStore or snapshotCatalogue/) }),
    );
  });

  it('snapshotCatalogue: false keeps none: both queries reject with NoSnapshotStoreError', async () => {
    const { session } = setup({ snapshotCatalogue: false });
    session.snapshot({ tag: 'tool:x' });
    await expect(session.findSnapshots({ tag: 'tool:*' })).rejects.toBeInstanceOf(NoSnapshotStoreError);
  });
});

describe('what is not catalogued', () => {
  it("a transaction's rollback point is not, and a rollback leaves the lineage as it was", async () => {
    const { session } = setup();
    const v1 = session.snapshot({ tag: 'v1' });
    session.restore(v1);
    session.transaction(() => session.dispatch(StepAdded({ step: 'kept' })));
    expect(() =>
      session.transaction(() => {
        session.dispatch(StepAdded({ step: 'rolled back' }));
        throw new Error('tool failed');
      }),
    ).toThrow('tool failed');
    expect(session.read(Plan)).toEqual(['kept']);
    const after = session.snapshot({ tag: 'after' });
    expect(after.parents).toEqual([v1.id]);
    expect((await session.findSnapshots()).map((i) => i.tag)).toEqual(['after', 'v1']);
    expect((await session.snapshotLineage(after)).map((i) => i.tag)).toEqual(['v1', 'after']);
  });

  it("the library's own reads (captureSnapshot: flight recorder, devtools) are not", async () => {
    const { session } = setup();
    session[SESSION_INTERNALS].captureSnapshot({ includeLogs: true });
    expect(await session.findSnapshots()).toEqual([]);
  });

  it('a snapshot is catalogued without a copy: its id (made once, by whichever reads it first), parents and names', async () => {
    const { session } = setup();
    session.dispatch(NoteTaken({ text: 'n' }));
    const s = session.snapshot({ includeLogs: true, tag: 'all' });
    const [info] = await session.findSnapshots({ tag: 'all' });
    // The catalogue read the id first; the snapshot has the same one.
    expect(info?.id).toBe(s.id);
    expect(info?.parents).toBe(s.parents);
    expect(info?.slices).toEqual(['plan', 'notes']);
    // Asked again, the same entry (made once per snapshot).
    expect((await session.findSnapshots({ tag: 'all' }))[0]).toBe(info);
  });

  it("keeps no snapshot's content alive: states restored from JSON and snapshotted leave memory when nothing else holds them", async () => {
    // V8's collector, reached without the --expose-gc flag (vitest's workers do not have it).
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const { session } = setup();
    const refs: WeakRef<object>[] = [];
    for (let k = 0; k < 3; k++) {
      const json = JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 3, seq: 0, at: 0, slices: { plan: { policy: 'state', items: [`step ${k}`, `step ${k}b`] } } });
      const restored = snapshotFromJSON(json, [Plan]);
      refs.push(new WeakRef(restored.slices['plan']?.items as object));
      session.restore(restored);
      session.snapshot({ tag: `after ${k}` });
    }
    session.dispatch(StepAdded({ step: 'later' }));
    // A WeakRef's target stays alive until the current job ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    collect();
    // The catalogue holds all three snapshots; the first two states are gone (the last one's
    // capture may still be the session's own cache of its last snapshot).
    expect(refs.slice(0, 2).map((r) => r.deref() === undefined)).toEqual([true, true]);
    expect((await session.findSnapshots()).map((i) => i.tag)).toEqual(['after 2', 'after 1', 'after 0']);
  });

  it('refuses picomatch-only glob syntax with the query error, saying what it takes', async () => {
    const { session } = setup();
    await expect(session.findSnapshots({ tag: '+(tool|plan):*' })).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_QUERY', message: expect.stringMatching(/extglob/) });
    await expect(session.findSnapshots({ tag: '' })).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_QUERY' });
    await expect(session.findSnapshots({ createdAfter: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_QUERY' });
  });
});

describe('a session given a snapshot store', () => {
  it('saves every snapshot it takes (not the rollback points), in call order: findSnapshots sees them at once', async () => {
    const store = createSnapshotStore();
    const { session } = setup({ snapshotStore: store });
    const a = session.snapshot({ tag: 'tool:a' });
    session.transaction(() => session.dispatch(StepAdded({ step: 'x' })));
    const b = session.snapshot({ tag: 'tool:b' });
    expect((await session.findSnapshots({ tag: 'tool:*' })).map((i) => i.id)).toEqual([b.id, a.id]);
    expect(await store.find()).toHaveLength(2);
    expect(await store.load(a.id)).toBe(a);
  });

  it('reports a failed save on errors$ as a SnapshotSaveError; the snapshot is returned all the same', async () => {
    const store = createSnapshotStore();
    const failing: SnapshotStore = { ...store, save: () => Promise.reject(new Error('disk full')) };
    const { session } = setup({ snapshotStore: failing });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const s = session.snapshot({ tag: 'tool:a' });
    await new Promise((resolve) => setTimeout(resolve, 0)); // the save's rejection is handled
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SnapshotSaveError);
    expect(errors[0]).toMatchObject({ code: 'SNAPSHOT_SAVE_FAILED', snapshotId: s.id, tag: 'tool:a', cause: expect.objectContaining({ message: 'disk full' }) });
    // A store whose save throws synchronously is reported the same way.
    const throwing: SnapshotStore = { ...store, save: () => { throw new Error('bad store'); } };
    const other = setup({ snapshotStore: throwing }).session;
    const seen: RxSliceError[] = [];
    other.errors$.subscribe((e) => seen.push(e));
    expect(() => other.snapshot()).not.toThrow();
    expect(seen.map((e) => e.code)).toEqual(['SNAPSHOT_SAVE_FAILED']);
  });

  it('refuses a store without save', () => {
    const { find, lineage } = createSnapshotStore();
    expect(() => createSession({ slices: [Plan], snapshotStore: { find, lineage } as never })).toThrow(expect.objectContaining({ code: 'INVALID_SNAPSHOT_STORE' }));
  });
});
