import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VirtualTimeScheduler } from 'rxjs';
import { append, createSession, defineEvent, defineSlice, Snapshot } from '../../src/index';
import { createSnapshotStore, memorySnapshots, SnapshotStoreError, type SnapshotStoreBackend } from '../../src/snapshot-store/index';
import { snapshotDirectory } from '../../src/jsonl/index';

const Added = defineEvent('plan/added', z.object({ step: z.string() }));
const Used = defineEvent('usage/used', z.object({ tokens: z.number() }));
const Plan = defineSlice('plan', { policy: 'state', schema: z.string(), reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload.step))] });
const Usage = defineSlice('usage', {
  policy: 'state',
  schema: z.object({ tokens: z.number() }),
  initial: [{ tokens: 0 }],
  reducers: ({ onLatest }) => [onLatest(Used, (u, e) => ({ tokens: (u?.tokens ?? 0) + e.payload.tokens }))],
});
const SLICES = [Plan, Usage];

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-snapstore-'));
  dirs.push(d);
  return join(d, 'snapshots');
};

/** A session whose clock advances 10 ms per tick(), so capture times are distinct and known. */
function clockedSession() {
  const scheduler = new VirtualTimeScheduler();
  const session = createSession({ slices: SLICES, scheduler });
  return {
    session,
    tick: () => {
      scheduler.schedule(() => undefined, 10);
      scheduler.flush();
    },
  };
}

const backends: [string, () => SnapshotStoreBackend][] = [
  ['memory', () => memorySnapshots()],
  ['directory', () => snapshotDirectory(freshDir(), { slices: SLICES })],
];

describe.each(backends)('snapshot store on %s', (_name, backend) => {
  it('saves and loads snapshots by id; an unknown id is SNAPSHOT_NOT_FOUND', async () => {
    const store = createSnapshotStore({ storage: backend() });
    const { session } = clockedSession();
    session.dispatch(Added({ step: 'a' }));
    const snap = session.snapshot({ tag: 'plan:a' });
    const info = await store.save(snap);
    expect(info).toMatchObject({ id: snap.id, tag: 'plan:a', seq: snap.seq, parents: [], slices: ['plan', 'usage'] });
    const loaded = await store.load(snap.id);
    expect(loaded.slices['plan']?.items).toEqual(['a']);
    expect(loaded.id).toBe(snap.id);
    session.dispatch(Added({ step: 'b' }));
    session.restore(loaded);
    expect(session.slice(Plan).all()).toEqual(['a']);
    await expect(store.load('nope')).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND' });
  });

  it('finds by tag glob (negation too), capture time and slice, newest first, with a limit', async () => {
    const store = createSnapshotStore({ storage: backend() });
    const { session, tick } = clockedSession();
    const t0 = session.snapshot().at;
    const saved: Record<string, string> = {};
    for (const tag of ['tool:search', 'tool:edit', 'plan:v1', 'debug:x']) {
      tick();
      saved[tag] = (await store.save(session.snapshot({ tag }))).id;
    }
    tick();
    const planOnly = await store.save(session.snapshot({ include: [Plan] }));
    const ids = (infos: { id: string }[]) => infos.map((i) => i.id);
    expect(ids(await store.find({ tag: 'tool:*' }))).toEqual([saved['tool:edit'], saved['tool:search']]);
    expect(ids(await store.find({ tag: '!tool:*' }))).toEqual([saved['debug:x'], saved['plan:v1']]);
    expect(ids(await store.find({ tag: '{plan,debug}:*', limit: 1 }))).toEqual([saved['debug:x']]);
    expect(ids(await store.find({ createdAfter: t0 + 25 }))).toEqual([planOnly.id, saved['debug:x'], saved['plan:v1']]);
    expect(ids(await store.find({ createdBefore: new Date(t0 + 15) }))).toEqual([saved['tool:search']]);
    expect((await store.find({ containsSlice: Usage })).length).toBe(4);
    expect(ids(await store.find({ containsSlice: 'plan', tag: 'plan:*' }))).toEqual([saved['plan:v1']]);
    expect((await store.find()).length).toBe(5);
    await expect(store.find({ tag: '' })).rejects.toBeInstanceOf(SnapshotStoreError);
    await expect(store.find({ limit: -1 })).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_QUERY' });
  });

  it('lineage follows restores and merges back to the root, as far as the store holds them', async () => {
    const store = createSnapshotStore({ storage: backend() });
    const { session } = clockedSession();
    const root = session.snapshot({ tag: 'root' });
    session.restore(root);
    session.dispatch(Added({ step: 'a' }));
    const child = session.snapshot();
    const merged = Snapshot.merge(child, session.snapshot({ include: [Usage] }));
    for (const s of [root, child, merged]) await store.save(s);
    expect((await store.lineage(merged.id)).map((i) => i.id)).toEqual([merged.id, child.id, root.id]);
    expect((await store.lineage(merged.id))[0]?.parents).toHaveLength(2);
    expect((await store.lineage(root.id)).map((i) => i.id)).toEqual([root.id]);
    await expect(store.lineage('nope')).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND' });
  });

  it('forget keeps the newest keepLast and the tagged ones (all, or by glob), deletes the rest', async () => {
    const store = createSnapshotStore({ storage: backend() });
    const { session, tick } = clockedSession();
    const ids: string[] = [];
    for (const tag of ['release:1', undefined, 'tmp:a', undefined, 'release:2', undefined]) {
      tick();
      ids.push((await store.save(session.snapshot(tag === undefined ? {} : { tag }))).id);
    }
    await expect(store.forget({})).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_QUERY' });
    const removed = await store.forget({ keepLast: 2, keepTagged: 'release:*' });
    expect(removed.sort()).toEqual([ids[1], ids[2], ids[3]].sort());
    expect((await store.find()).map((i) => i.id)).toEqual([ids[5], ids[4], ids[0]]);
    expect(await store.forget({ keepTagged: true })).toEqual([ids[5]]);
    await expect(store.load(ids[1] as string)).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND' });
  });

  it('refuses a snapshot whose id is unfit for storage', async () => {
    const store = createSnapshotStore({ storage: backend() });
    const { session } = clockedSession();
    const evil = Object.create(session.snapshot(), { id: { value: '../escape' } }) as Snapshot;
    await expect(store.save(evil)).rejects.toMatchObject({ code: 'INVALID_SNAPSHOT_ID' });
  });
});

describe('snapshotDirectory', () => {
  it('writes one atomic snapshot file and one info file per snapshot; a damaged file fails closed; a snapshot without info is still listed', async () => {
    const dir = freshDir();
    const store = createSnapshotStore({ storage: snapshotDirectory(dir, { slices: SLICES }) });
    const { session } = clockedSession();
    session.dispatch(Added({ step: 'a' }));
    const snap = session.snapshot({ tag: 't' });
    await store.save(snap);
    expect(readdirSync(dir).sort()).toEqual([`${snap.id}.info.json`, `${snap.id}.snapshot.json`]);
    // A second store on the same directory (another process) sees it.
    const again = createSnapshotStore({ storage: snapshotDirectory(dir, { slices: SLICES }) });
    expect((await again.find({ tag: 't' })).map((i) => i.id)).toEqual([snap.id]);
    // The info file lost (a crash between the two writes): listed from the snapshot itself.
    rmSync(join(dir, `${snap.id}.info.json`));
    expect((await again.find({ tag: 't' })).map((i) => i.id)).toEqual([snap.id]);
    // An item edited outside the process: loading validates it with the slice schema.
    const file = join(dir, `${snap.id}.snapshot.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"a"', '42'));
    await expect(again.load(snap.id)).rejects.toThrow(/does not match its schema/);
  });
});
