import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  InvalidSnapshotError,
  MigrationError,
  SliceVersionError,
  SNAPSHOT_FORMAT_VERSION,
  snapshotFromJSON,
  type SliceMigrations,
} from '../../src/index';

// The same slice at three schema versions: v1 stored `{ title }`, v2 `{ title, done }`,
// v3 `{ title, done, tags }`.
const Added = defineEvent('todo/added', z.object({ title: z.string() }));
const V1 = z.object({ title: z.string() });
const V3 = z.object({ title: z.string(), done: z.boolean(), tags: z.array(z.string()) });
const TodosV1 = defineSlice('todos', {
  policy: 'log',
  schema: V1,
  reducers: ({ on }) => [on(Added, (_v, e) => append({ title: e.payload.title }))],
});
const TodosV3 = defineSlice('todos', {
  policy: 'log',
  schema: V3,
  version: 3,
  migrations: {
    1: (t: { title: string }) => ({ ...t, done: false }),
    2: (t: { title: string; done: boolean }) => ({ ...t, tags: t.title.startsWith('#') ? [t.title.slice(1)] : [] }),
  },
});

describe('snapshot JSON: schema versions', () => {
  it('writes the format version and each slice schema version', () => {
    const session = createSession({ slices: [TodosV3] });
    const json = JSON.parse(JSON.stringify(session.snapshot({ includeLogs: true })));
    expect(json.formatVersion).toBe(SNAPSHOT_FORMAT_VERSION);
    expect(json.formatVersion).toBe(3);
    expect(json.slices.todos).toEqual({ policy: 'log', schemaVersion: 3, items: [] });
  });

  it('opens data stored at version 1 under version 3 code', () => {
    const old = createSession({ slices: [TodosV1] });
    old.dispatch(Added({ title: 'buy milk' }));
    old.dispatch(Added({ title: '#urgent' }));
    const text = JSON.stringify(old.snapshot({ includeLogs: true }));
    expect(JSON.parse(text).slices.todos.schemaVersion).toBe(1);

    const snapshot = snapshotFromJSON(text, [TodosV3]);
    expect(snapshot.slices['todos']?.items).toEqual([
      { title: 'buy milk', done: false, tags: [] },
      { title: '#urgent', done: false, tags: ['urgent'] },
    ]);
    const fresh = createSession({ slices: [TodosV3] });
    fresh.restore(snapshot);
    expect(fresh.read(TodosV3)).toHaveLength(2);
    // Written again, it is version 3 data.
    expect(JSON.parse(JSON.stringify(fresh.snapshot({ includeLogs: true }))).slices.todos.schemaVersion).toBe(3);
  });

  it('reads format 1 snapshots (no schema versions) as version 1 data', () => {
    const v1 = { format: 'rxslice.snapshot', formatVersion: 1, seq: 2, at: 0, slices: { todos: { policy: 'log', items: [{ title: 'a' }] } } };
    expect(snapshotFromJSON(v1, [TodosV3]).slices['todos']?.items).toEqual([{ title: 'a', done: false, tags: [] }]);
  });

  it('fails clearly when the data is newer than the code', () => {
    const text = JSON.stringify(createSession({ slices: [TodosV3] }).snapshot({ includeLogs: true }));
    let error: unknown;
    try {
      snapshotFromJSON(text, [TodosV1]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SliceVersionError);
    expect(error).toMatchObject({ code: 'SLICE_VERSION_TOO_NEW', sliceName: 'todos', storedVersion: 3, codeVersion: 1 });
    expect((error as Error).message).toMatch(/newer than this code's version 1/);
  });

  it('rejects a schema version that is not an integer >= 1', () => {
    const bad = { format: 'rxslice.snapshot', formatVersion: 2, seq: 0, at: 0, slices: { todos: { policy: 'log', schemaVersion: 'x', items: [] } } };
    expect(() => snapshotFromJSON(bad, [TodosV3])).toThrow(expect.objectContaining({ code: 'SLICE_VERSION_INVALID' }));
  });

  it('reports a migration whose result fails the current schema, with zod issues', () => {
    const Broken = defineSlice('todos', { policy: 'log', schema: V3, version: 2, migrations: { 1: (t: unknown) => t } });
    const text = JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 2, seq: 0, at: 0, slices: { todos: { policy: 'log', schemaVersion: 1, items: [{ title: 'a' }] } } });
    expect(() => snapshotFromJSON(text, [Broken])).toThrow(MigrationError);
    try {
      snapshotFromJSON(text, [Broken]);
    } catch (e) {
      expect((e as MigrationError).issues.map((i) => i.path[0])).toEqual(['done', 'tags']);
    }
  });

  it('still reports current-version items that fail the schema as InvalidSnapshotError', () => {
    const text = JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 2, seq: 0, at: 0, slices: { todos: { policy: 'log', schemaVersion: 3, items: [{ title: 1 }] } } });
    expect(() => snapshotFromJSON(text, [TodosV3])).toThrow(InvalidSnapshotError);
  });
});

// ---- property: migrating on read equals migrating at write time ---------------------------

const Item = z.object({ n: z.number(), tags: z.array(z.string()) });
type Item = z.infer<typeof Item>;
/** Pure steps a migration may be made of (all keep the item shape, so every version has the same schema). */
const stepKinds: readonly ((arg: number) => (item: Item) => Item)[] = [
  (c) => (item) => ({ ...item, n: item.n + c }),
  (c) => (item) => ({ ...item, n: item.n * c }),
  (c) => (item) => ({ ...item, tags: [...item.tags, `t${c}`] }),
  () => (item) => ({ ...item, tags: [...item.tags].reverse() }),
  (c) => (item) => ({ ...item, tags: item.tags.filter((t) => t !== `t${c}`) }),
];

/** The slice at `version` with the first `version - 1` steps of `chain`. */
function sliceAt(version: number, chain: readonly ((item: Item) => Item)[]) {
  const migrations: Record<number, (item: any) => unknown> = {};
  for (let k = 1; k < version; k++) migrations[k] = chain[k - 1] as (item: Item) => Item;
  return defineSlice('data', { policy: 'state', schema: Item, version, migrations: migrations as SliceMigrations });
}

describe('snapshot JSON: migrations (property)', () => {
  it('any chain of migrations applied on read equals applying them at write time', () => {
    const arbStep = fc.tuple(fc.integer({ min: 0, max: stepKinds.length - 1 }), fc.integer({ min: -3, max: 3 })).map(([k, c]) => (stepKinds[k] as (c: number) => (item: Item) => Item)(c));
    const arbItem = fc.record({ n: fc.integer({ min: -100, max: 100 }), tags: fc.array(fc.constantFrom<string>('a', 'b', 't1', 't2'), { maxLength: 4 }) });
    fc.assert(
      fc.property(
        fc.array(arbStep, { minLength: 0, maxLength: 6 }),
        fc.array(arbItem, { maxLength: 8 }),
        fc.nat(),
        (chain, items, pick) => {
          const latest = chain.length + 1;
          const writtenAt = 1 + (pick % latest); // the version of the code that wrote the data
          // The writer's items: version-1 items brought to `writtenAt` by its own code.
          const writer = sliceAt(writtenAt, chain);
          const stored = items.map((item) => chain.slice(0, writtenAt - 1).reduce((x, step) => step(x), item));
          const text = JSON.stringify({
            format: 'rxslice.snapshot',
            formatVersion: 2,
            seq: 0,
            at: 0,
            slices: { data: { policy: 'state', schemaVersion: writer.version, items: stored } },
          });
          // Read-time migration under the latest code ...
          const onRead = snapshotFromJSON(text, [sliceAt(latest, chain)]).slices['data']?.items;
          // ... equals migrating everything at write time and storing at the latest version.
          const atWrite = items.map((item) => chain.reduce((x, step) => step(x), item));
          const written = JSON.stringify({
            format: 'rxslice.snapshot',
            formatVersion: 2,
            seq: 0,
            at: 0,
            slices: { data: { policy: 'state', schemaVersion: latest, items: atWrite } },
          });
          // Compared as JSON: a step may make -0, which JSON (the write-time path) stores as 0.
          const expected = snapshotFromJSON(written, [sliceAt(latest, chain)]).slices['data']?.items;
          expect(JSON.stringify(onRead)).toBe(JSON.stringify(expected));
        },
      ),
      { numRuns: 300 },
    );
  });
});
