import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, InvalidSnapshotError, type Snapshot, UnknownSliceError } from '../../src/index';
import {
  loadSnapshot,
  NotASnapshotError,
  saveSnapshot,
  saveSnapshotSync,
  SnapshotFileError,
  SnapshotFileNotFoundError,
} from '../../src/jsonl/index';

const Noted = defineEvent('notes/noted', z.object({ text: z.string() }));
const Note = z.object({ text: z.string() });
const Notes = defineSlice('notes', { policy: 'log', schema: Note, reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload))] });
const Count = defineSlice('count', {
  policy: 'state',
  schema: z.number(),
  initial: [0],
  reducers: ({ onLatest }) => [onLatest(Noted, (n) => (n ?? 0) + 1)],
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-snapfile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function sessionWith(n: number) {
  const session = createSession({ slices: [Notes, Count] });
  for (let i = 0; i < n; i++) session.dispatch(Noted({ text: `note ${i}` }));
  return session;
}

describe('saveSnapshot / loadSnapshot', () => {
  it('round-trips a session state through a file, restorable into a fresh session', async () => {
    const path = join(dir, 'state.json');
    const session = sessionWith(3);
    await saveSnapshot(path, session.snapshot({ includeLogs: true, tag: 'end' }));
    const loaded = loadSnapshot(path, [Notes, Count]);
    expect(loaded.seq).toBe(3);
    expect(loaded.tag).toBe('end');
    const fresh = createSession({ slices: [Notes, Count] });
    fresh.restore(loaded);
    expect(fresh.read(Notes)).toEqual(session.read(Notes));
    expect(fresh.read(Count)).toEqual([3]);
  });

  it('writes the codec JSON (format and schema versions)', () => {
    const path = join(dir, 'state.json');
    saveSnapshotSync(path, sessionWith(1).snapshot({ includeLogs: true }));
    const json = JSON.parse(readFileSync(path, 'utf8'));
    expect(json).toMatchObject({ format: 'rxslice.snapshot', formatVersion: 3, slices: { notes: { schemaVersion: 1 }, count: { schemaVersion: 1 } } });
  });

  it('replaces an existing file and leaves no temporary file behind', async () => {
    const path = join(dir, 'state.json');
    await saveSnapshot(path, sessionWith(1).snapshot({ includeLogs: true }));
    await saveSnapshot(path, sessionWith(5).snapshot({ includeLogs: true }));
    saveSnapshotSync(path, sessionWith(7).snapshot({ includeLogs: true }));
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(loadSnapshot(path, [Notes, Count]).slices['count']?.items).toEqual([7]);
  });

  it('serializes concurrent saves to one path: the last one wins, the file is always whole', async () => {
    const path = join(dir, 'state.json');
    await Promise.all([1, 2, 3, 4].map((n) => saveSnapshot(path, sessionWith(n).snapshot({ includeLogs: true }))));
    expect(loadSnapshot(path, [Notes, Count]).slices['count']?.items).toEqual([4]);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('keeps the previous file when the write fails, with a typed error', async () => {
    const path = join(dir, 'state.json');
    await saveSnapshot(path, sessionWith(2).snapshot({ includeLogs: true }));
    const missingDir = join(dir, 'nope', 'state.json');
    await expect(saveSnapshot(missingDir, sessionWith(1).snapshot())).rejects.toBeInstanceOf(SnapshotFileError);
    await expect(saveSnapshot(missingDir, sessionWith(1).snapshot())).rejects.toMatchObject({ code: 'SNAPSHOT_FILE_IO', path: missingDir });
    // A directory where the file should be: the rename fails, nothing is left behind.
    const asDir = join(dir, 'taken');
    mkdirSync(asDir);
    expect(() => saveSnapshotSync(asDir, sessionWith(1).snapshot())).toThrow(SnapshotFileError);
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'taken']);
    expect(loadSnapshot(path, [Notes, Count]).slices['count']?.items).toEqual([2]);
  });

  it('rejects a value that is not a snapshot before touching the disk', async () => {
    const path = join(dir, 'state.json');
    expect(() => saveSnapshot(path, { seq: 1 } as unknown as Snapshot)).toThrow(NotASnapshotError);
    expect(() => saveSnapshotSync(path, null as unknown as Snapshot)).toThrow(expect.objectContaining({ code: 'INVALID_SNAPSHOT' }));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reports a missing file with SNAPSHOT_FILE_NOT_FOUND', () => {
    const path = join(dir, 'absent.json');
    expect(() => loadSnapshot(path, [Notes])).toThrow(SnapshotFileNotFoundError);
    expect(() => loadSnapshot(path, [Notes])).toThrow(expect.objectContaining({ code: 'SNAPSHOT_FILE_NOT_FOUND', path }));
  });

  it('reports a directory at the path as an I/O error', () => {
    expect(() => loadSnapshot(dir, [Notes])).toThrow(expect.objectContaining({ code: 'SNAPSHOT_FILE_IO' }));
  });

  it('reports corrupt and truncated JSON with INVALID_SNAPSHOT', async () => {
    const path = join(dir, 'state.json');
    await saveSnapshot(path, sessionWith(3).snapshot({ includeLogs: true }));
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, text.length - 10));
    expect(() => loadSnapshot(path, [Notes, Count])).toThrow(InvalidSnapshotError);
    writeFileSync(path, text.replace('"note 1"', '17'));
    expect(() => loadSnapshot(path, [Notes, Count])).toThrow(/item 1 of slice "notes" does not match its schema/);
  });

  it('validates as snapshotFromJSON does: unknown slices, limits', async () => {
    const path = join(dir, 'state.json');
    await saveSnapshot(path, sessionWith(3).snapshot({ includeLogs: true }));
    expect(() => loadSnapshot(path, [Notes])).toThrow(UnknownSliceError);
    expect(() => loadSnapshot(path, [Notes, Count], { maxBytes: 10 })).toThrow(/over the limit of 10/);
  });

  it('migrates older data and rejects data newer than the code', async () => {
    const path = join(dir, 'state.json');
    await saveSnapshot(path, sessionWith(2).snapshot({ includeLogs: true }));
    const NotesV2 = defineSlice('notes', {
      policy: 'log',
      schema: z.object({ text: z.string(), length: z.number() }),
      version: 2,
      migrations: { 1: (n: { text: string }) => ({ ...n, length: n.text.length }) },
    });
    const loaded = loadSnapshot(path, [NotesV2, Count]);
    expect(loaded.slices['notes']?.items).toEqual([
      { text: 'note 0', length: 6 },
      { text: 'note 1', length: 6 },
    ]);
    const upgraded = createSession({ slices: [NotesV2, Count] });
    upgraded.restore(loaded);
    await saveSnapshot(path, upgraded.snapshot({ includeLogs: true }));
    expect(() => loadSnapshot(path, [Notes, Count])).toThrow(expect.objectContaining({ code: 'SLICE_VERSION_TOO_NEW', sliceName: 'notes' }));
  });
});

describe('loadSnapshot(path, { ifMissing }): state files with defaults', () => {
  const Settings = defineSlice('settings', {
    policy: 'state',
    schema: z.object({ theme: z.string(), fontSize: z.number() }),
    initial: [{ theme: 'light', fontSize: 14 }],
  });

  it("gives the slices' initial items for a missing file, validated and frozen like a file's, restorable into a session", () => {
    const path = join(dir, 'missing.json');
    const state = loadSnapshot(path, { slices: [Settings, Count], ifMissing: 'initial' });
    expect(Object.fromEntries(Object.entries(state.slices).map(([k, v]) => [k, v.items]))).toEqual({ settings: [{ theme: 'light', fontSize: 14 }], count: [0] });
    expect([state.seq, state.at, state.tag, state.parents]).toEqual([0, 0, undefined, []]);
    expect(Object.isFrozen(state.slices['settings']?.items[0])).toBe(true);
    const session = createSession({ slices: [Settings, Count, Notes] });
    session.dispatch(Noted({ text: 'x' }));
    session.restore(state);
    expect(session.read(Count)).toEqual([0]);
    expect(session.read(Settings)).toEqual([{ theme: 'light', fontSize: 14 }]);
    expect(readdirSync(dir)).toEqual([]); // nothing written
  });

  it('reads the file when it exists, whatever ifMissing says', async () => {
    const path = join(dir, 'state.json');
    await saveSnapshot(path, sessionWith(3).snapshot());
    expect(loadSnapshot(path, { slices: [Notes, Count], ifMissing: 'initial' }).slices['count']?.items).toEqual([3]);
    expect(loadSnapshot(path, [Notes, Count], { ifMissing: () => { throw new Error('not called'); } }).slices['count']?.items).toEqual([3]);
  });

  it('returns a given snapshot, or calls a function only when the file is missing', () => {
    const path = join(dir, 'missing.json');
    const fallback = sessionWith(2).snapshot({ tag: 'defaults' });
    expect(loadSnapshot(path, { slices: [Notes, Count], ifMissing: fallback })).toBe(fallback);
    let calls = 0;
    expect(loadSnapshot(path, [Notes, Count], { ifMissing: () => (calls++, fallback) })).toBe(fallback);
    expect(calls).toBe(1);
  });

  it("still throws SnapshotFileNotFoundError with 'throw' (the default), naming the ifMissing option", () => {
    const path = join(dir, 'missing.json');
    expect(() => loadSnapshot(path, { slices: [Notes] })).toThrow(SnapshotFileNotFoundError);
    expect(() => loadSnapshot(path, { slices: [Notes], ifMissing: 'throw' })).toThrow(/ifMissing: 'initial'/);
  });

  it('does not hide damage: a corrupt file, a directory at the path or a missing parent directory that is a file still throw', async () => {
    const path = join(dir, 'state.json');
    await saveSnapshot(path, sessionWith(3).snapshot({ includeLogs: true }));
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 20));
    expect(() => loadSnapshot(path, { slices: [Notes, Count], ifMissing: 'initial' })).toThrow(InvalidSnapshotError);
    expect(() => loadSnapshot(dir, { slices: [Notes, Count], ifMissing: 'initial' })).toThrow(expect.objectContaining({ code: 'SNAPSHOT_FILE_IO' }));
    // ENOTDIR (a path through a file) is not "missing": only ENOENT gives defaults.
    expect(() => loadSnapshot(join(path, 'inner.json'), { slices: [Notes, Count], ifMissing: 'initial' })).toThrow(expect.objectContaining({ code: 'SNAPSHOT_FILE_IO' }));
  });

  it('refuses an ifMissing that is not a mode, a snapshot or a function, and a function that returns no snapshot', () => {
    const path = join(dir, 'missing.json');
    expect(() => loadSnapshot(path, { slices: [Notes], ifMissing: 'defaults' as never })).toThrow(/ifMissing must be 'throw', 'initial', a snapshot or a function/);
    expect(() => loadSnapshot(path, { slices: [Notes], ifMissing: (() => null) as never })).toThrow(/returned null, not a snapshot/);
    expect(() => loadSnapshot(path, { ifMissing: 'initial' } as never)).toThrow(InvalidSnapshotError);
  });
});
