import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** When set, journal writes fail as a full disk would. */
const disk = vi.hoisted(() => ({ full: false, syncFails: false, beforeRename: undefined as ((to: string) => void) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    writeSync: (...args: Parameters<typeof fs.writeSync>) => {
      if (disk.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return (fs.writeSync as (...a: unknown[]) => number)(...args);
    },
    fdatasyncSync: (fd: number) => {
      if (disk.syncFails) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      fs.fdatasyncSync(fd);
    },
    renameSync: (from: string, to: string) => {
      const hook = disk.beforeRename;
      disk.beforeRename = undefined;
      hook?.(String(to));
      fs.renameSync(from, to);
    },
  };
});
import { z } from 'zod';
import { append, createSession, defineEvent, defineSaga, defineSlice, isRxSliceError, memory, replace, updateAt, type RxSliceError, type SliceStorage } from '../../src/index';
import type { JsonlSliceStorage } from '../../src/jsonl/jsonl-slice-storage';
import { createSession as createFullSession } from '../../src/store/create-session';
import { CorruptStorageError, jsonl, StorageLockCompromisedError, StorageLockedError, type JsonlStorageFactory } from '../../src/jsonl/index';
import { storageConformance } from '../storage/storage-conformance';

const roots: string[] = [];
const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-jsonl-'));
  roots.push(d);
  return d;
};
const opened: SliceStorage<unknown>[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.dispose();
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
  disk.full = false;
  disk.syncFails = false;
  disk.beforeRename = undefined;
  vi.useRealTimers();
});

let n = 0;
storageConformance('jsonl', (initial) => {
  const s = jsonl({ dir: freshDir(), fsync: 'never' })(defineSlice(`c${n++}`, { policy: 'log', initial: initial ?? [] })) as SliceStorage<unknown>;
  opened.push(s);
  return s;
});

const Noted = defineEvent('notes/noted', z.object({ text: z.string() }));
const Reset = defineEvent('notes/reset', z.object({}));
const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload)), on(Reset, () => replace([{ text: 'reset' }]))],
});
const Count = defineSlice('count', { policy: 'state', schema: z.number(), initial: [0], reducers: ({ onLatest }) => [onLatest(Noted, (c) => (c ?? 0) + 1)] });

let dir: string;
beforeEach(() => {
  dir = freshDir();
});

/** Declared, reduced by no slice: an event that changes nothing. */
const NobodyListens = defineEvent('nobody/listens', z.number());
const open = (factory: JsonlStorageFactory = jsonl({ dir, fsync: 'never' })) => createSession({ slices: [Notes, Count], storage: factory, events: [NobodyListens] });
const journalOf = (d = dir): string => join(d, readdirSync(d).find((f) => f.startsWith('journal-')) as string);
const state = (s: ReturnType<typeof open>) => ({ notes: s.slice(Notes).all(), count: s.slice(Count).all(), seq: s.lastSeq });

describe('jsonl storage in a session', () => {
  it('reopens with the committed state and continues the seq after the recovered one', () => {
    const a = open();
    for (let i = 0; i < 5; i++) a.dispatch(Noted({ text: `n${i}` }));
    a.dispatch(Reset({}));
    a.dispatch(Noted({ text: 'after' }));
    const before = state(a);
    a.dispose();
    const b = open();
    expect(state(b)).toEqual(before);
    expect(b.dispatch(Noted({ text: 'next' })).seq).toBe(before.seq + 1);
    b.dispose();
    const c = open();
    expect(c.slice(Notes).all().map((x) => x.text)).toEqual(['reset', 'after', 'next']);
    expect(c.slice(Count).latest()).toBe(7);
    c.dispose();
  });

  it('journals an updateAt as the one item (["u", index, [item]]), not the content, and reopens to the same items and times', () => {
    const Called = defineEvent('calls/called', z.object({ id: z.string() }));
    const Settled = defineEvent('calls/settled', z.object({ id: z.string() }));
    const Calls = defineSlice('calls', {
      policy: 'log',
      schema: z.object({ id: z.string(), done: z.boolean() }),
      reducers: ({ on }) => [
        on(Called, (_v, e) => append({ id: e.payload.id, done: false })),
        on(Settled, (v, e) => {
          for (let i = v.size - 1; i >= 0; i--) if (v.at(i)?.id === e.payload.id) return updateAt(i, { id: e.payload.id, done: true });
          throw new Error(`no call ${e.payload.id}`);
        }),
      ],
    });
    const a = createSession({ slices: [Calls], storage: jsonl({ dir, fsync: 'never' }) });
    for (const id of ['a', 'b', 'c']) a.dispatch(Called({ id }));
    a.dispatch(Settled({ id: 'b' }));
    // A bad index fails the event and writes nothing.
    expect(() => a.dispatch(Settled({ id: 'zz' }))).toThrow();
    const before = a.slice(Calls).all();
    a.dispose();
    const lines = readFileSync(journalOf(), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect((JSON.parse(lines[3] as string) as { rec: { slices: unknown } }).rec.slices).toEqual({ calls: { v: 1, ops: [['u', 1, [{ id: 'b', done: true }]]] } });
    const b = createSession({ slices: [Calls], storage: jsonl({ dir, fsync: 'never' }) });
    expect(b.slice(Calls).all()).toEqual(before);
    expect(b.slice(Calls).all()).toEqual([
      { id: 'a', done: false },
      { id: 'b', done: true },
      { id: 'c', done: false },
    ]);
    b.dispose();
    // The times: the updated item takes its record's, the others keep theirs.
    const Timed = defineSlice('timed', { policy: 'log', initial: [] as number[] });
    const d2 = freshDir();
    const s = jsonl({ dir: d2, fsync: 'never' })(Timed) as JsonlSliceStorage<number>;
    s.extend([1, 2, 3], 100);
    const tx = s.begin();
    // A bad index throws and records nothing; the same item records nothing either.
    // (-1 with the last item: `view.at(-1)` is that item, and still no item is at index -1.)
    for (const [bad, item] of [[3, 9], [-1, 3], [0.5, 9]] as const) expect(() => tx.updateAt?.(bad, item, 150)).toThrow(RangeError);
    tx.updateAt?.(0, 1, 150);
    expect((tx as unknown as { ops: { length: number } }).ops.length).toBe(0);
    tx.updateAt?.(2, 30, 200);
    tx.commit();
    s.dispose();
    const last = readFileSync(journalOf(d2), 'utf8').trimEnd().split('\n').at(-1) as string;
    expect((JSON.parse(last) as { rec: { slices: unknown } }).rec.slices).toEqual({ timed: { v: 1, ops: [['u', 2, [30]]] } });
    const r = jsonl({ dir: d2, fsync: 'never' })(Timed) as JsonlSliceStorage<number>;
    expect(Array.from(r.all())).toEqual([1, 2, 30]);
    expect(r.inner.content.times.toArray()).toEqual([100, 100, 200]);
    r.dispose();
  });

  it('writes ONE record per event covering every slice it changed (all or nothing per event); one that changed none leaves its seq only', () => {
    const a = open();
    a.dispatch(Noted({ text: 'x' }));
    a.dispatch({ type: 'nobody/listens', payload: 1 });
    a.dispatch(Noted({ text: 'y' }));
    a.dispose();
    const lines = readFileSync(journalOf(), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const recs = lines.map((l) => (JSON.parse(l) as { rec: { seq: number; prev: number; slices: Record<string, unknown> } }).rec);
    expect(recs.map((r) => [r.seq, r.prev, Object.keys(r.slices).sort()])).toEqual([
      [1, 0, ['count', 'notes']],
      [2, 1, []],
      [3, 2, ['count', 'notes']],
    ]);
  });

  it('keeps state slices in memory() and only the log in the journal with a per-policy factory', () => {
    const a = createSession({ slices: [Notes, Count], storage: { state: memory(), log: jsonl({ dir, fsync: 'never' }) } });
    a.dispatch(Noted({ text: 'x' }));
    a.dispose();
    const rec = (JSON.parse(readFileSync(journalOf(), 'utf8')) as { rec: { slices: Record<string, unknown> } }).rec;
    expect(Object.keys(rec.slices)).toEqual(['notes']);
    const b = createSession({ slices: [Notes, Count], storage: { state: memory(), log: jsonl({ dir, fsync: 'never' }) } });
    expect(b.slice(Notes).all()).toEqual([{ text: 'x' }]);
    expect(b.slice(Count).all()).toEqual([0]);
    b.dispose();
  });

  it('truncates a torn last record at every byte offset and opens at the previous event', () => {
    const a = open();
    a.dispatch(Noted({ text: 'one' }));
    const one = state(a);
    a.dispatch(Noted({ text: 'two' }));
    a.dispose();
    const file = journalOf();
    const full = readFileSync(file);
    const lastStart = full.lastIndexOf(10, full.length - 2) + 1;
    for (let cut = lastStart; cut < full.length; cut++) {
      writeFileSync(file, full.subarray(0, cut));
      const factory = jsonl({ dir, fsync: 'never' });
      const b = open(factory);
      expect(state(b)).toEqual(one);
      expect(factory.recovery?.dropped?.offset ?? lastStart).toBe(lastStart);
      expect(cut === lastStart ? factory.recovery?.dropped : factory.recovery?.dropped?.bytes).toBe(cut === lastStart ? undefined : cut - lastStart);
      b.dispose();
      expect(readFileSync(file).length).toBe(lastStart);
    }
  });

  it('detects a flipped bit anywhere before the last record (CorruptStorageError naming file and offset)', () => {
    const a = open();
    for (let i = 0; i < 2; i++) a.dispatch(Noted({ text: `n${i}` }));
    a.dispose();
    const file = journalOf();
    const full = readFileSync(file);
    const lastStart = full.lastIndexOf(10, full.length - 2) + 1;
    let detected = 0;
    for (let byte = 0; byte < lastStart; byte++) {
      const bit = byte % 8;
      const damaged = Buffer.from(full);
      damaged[byte] = (damaged[byte] as number) ^ (1 << bit);
      writeFileSync(file, damaged);
      let error: unknown;
      try {
        open().dispose();
      } catch (e) {
        error = e;
      }
      expect(error, `byte ${byte} bit ${bit}`).toBeInstanceOf(CorruptStorageError);
      expect((error as CorruptStorageError).file).toBe(file);
      expect((error as CorruptStorageError).offset).toBeLessThanOrEqual(byte);
      detected++;
    }
    expect(detected).toBe(lastStart);
  });

  it("'absolute' refuses a torn tail; 'point-in-time' opens before mid-file damage and reports what it dropped", () => {
    const a = open();
    for (let i = 0; i < 4; i++) a.dispatch(Noted({ text: `n${i}` }));
    a.dispose();
    const file = journalOf();
    const full = readFileSync(file);
    writeFileSync(file, full.subarray(0, full.length - 3));
    expect(() => open(jsonl({ dir, recovery: 'absolute' }))).toThrow(CorruptStorageError);
    // Damage the second record: the first survives, the other three are dropped and reported.
    const second = full.indexOf(10) + 1;
    const damaged = Buffer.from(full);
    damaged[second + 40] = (damaged[second + 40] as number) ^ 4;
    writeFileSync(file, damaged);
    expect(() => open()).toThrow(CorruptStorageError);
    const factory = jsonl({ dir, recovery: 'point-in-time' });
    const b = open(factory);
    expect(b.slice(Notes).all()).toEqual([{ text: 'n0' }]);
    expect(factory.recovery?.dropped).toMatchObject({ file, offset: second, lines: 3, bytes: full.length - second });
    expect(b.dispatch(Noted({ text: 'again' })).seq).toBe(2);
    b.dispose();
    expect(state(open())).toMatchObject({ seq: 2, count: [2] });
  });

  it('locks the directory: a second open gets StorageLockedError naming the holder; dispose unlocks', () => {
    const a = open();
    let error: unknown;
    try {
      open();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StorageLockedError);
    expect((error as StorageLockedError).holder?.pid).toBe(process.pid);
    expect((error as StorageLockedError).message).toContain(`pid ${process.pid}`);
    a.dispose();
    open().dispose();
  });

  it('takes over the lock of a dead process at once', () => {
    const a = open();
    a.dispatch(Noted({ text: 'x' }));
    // Pretend the holder was a process that no longer exists.
    const ownerFile = join(dir, 'LOCK.owner.json');
    const owner = JSON.parse(readFileSync(ownerFile, 'utf8')) as { pid: number };
    const factory = a as unknown as { dispose(): void };
    writeFileSync(ownerFile, JSON.stringify({ ...owner, pid: 2 ** 22 + 12345 }));
    const b = open();
    expect(b.slice(Notes).all()).toEqual([{ text: 'x' }]);
    b.dispose();
    factory.dispose();
  });

  it('a takeover of a dead holder never removes a lock another process made meanwhile (even one reusing the dead lock inode)', () => {
    const a = open();
    a.dispatch(Noted({ text: 'x' }));
    const ownerFile = join(dir, 'LOCK.owner.json');
    const dead = { ...(JSON.parse(readFileSync(ownerFile, 'utf8')) as { pid: number }), pid: 2 ** 22 + 12345 };
    writeFileSync(ownerFile, JSON.stringify(dead));
    // B takes over the dead holder's lock. Just before B's owner file replaces the dead one, C
    // opens: it sees a dead holder whose recorded inode is the inode of B's fresh lock (as when
    // the file system reuses the removed lock's inode). C must not take B's lock.
    let c: unknown;
    disk.beforeRename = (to) => {
      expect(to).toBe(ownerFile);
      writeFileSync(ownerFile, JSON.stringify({ ...dead, ino: statSync(join(dir, 'LOCK')).ino }));
      try {
        c = open();
      } catch (e) {
        c = e;
      }
    };
    const b = open();
    expect(c).toBeInstanceOf(StorageLockedError);
    expect(b.slice(Notes).all()).toEqual([{ text: 'x' }]);
    expect((JSON.parse(readFileSync(ownerFile, 'utf8')) as { pid: number }).pid).toBe(process.pid);
    (a as unknown as { dispose(): void }).dispose();
  });

  it('a createSession that fails after opening the directory releases it (duplicate slice, bad channel, duplicate saga)', () => {
    const Dup = defineSlice('notes', { policy: 'log', reducers: () => [] });
    expect(() => createSession({ slices: [Notes, Count, Dup], storage: jsonl({ dir }) })).toThrow(expect.objectContaining({ code: 'DUPLICATE_SLICE' }));
    expect(() => createSession({ slices: [Notes, Count], storage: jsonl({ dir }), channels: [{} as never] })).toThrow(expect.objectContaining({ code: 'INVALID_CHANNEL' }));
    const saga = defineSaga('s', { input: z.object({}) }).step('a', { run: () => 1 });
    const other = defineSaga('s', { input: z.object({}) }).step('b', { run: () => 2 });
    expect(() => createFullSession({ slices: [Notes, Count], storage: jsonl({ dir }), sagas: [saga, other] })).toThrow(/two different sagas are named "s"/);
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
    const s = open();
    s.dispatch(Noted({ text: 'still writable' }));
    expect(s.slice(Notes).all()).toEqual([{ text: 'still writable' }]);
  });

  it('removes the owner file on release and leaves no acquisition mutex behind', () => {
    const a = open();
    expect(existsSync(join(dir, 'LOCK.owner.json'))).toBe(true);
    expect(existsSync(join(dir, 'LOCK.takeover'))).toBe(false);
    a.dispose();
    expect(existsSync(join(dir, 'LOCK.owner.json'))).toBe(false);
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
  });

  it('a failed write is fatal: the event is not visible, errors$ reports it, later dispatches throw', () => {
    const a = open();
    const errors: RxSliceError[] = [];
    a.errors$.subscribe((e) => errors.push(e));
    a.dispatch(Noted({ text: 'ok' }));
    disk.full = true;
    expect(() => a.dispatch(Noted({ text: 'lost' }))).toThrow(expect.objectContaining({ code: 'STORAGE_FAILED' }));
    disk.full = false;
    expect(a.slice(Notes).all()).toEqual([{ text: 'ok' }]);
    expect(a.slice(Count).all()).toEqual([1]);
    expect(errors.map((e) => e.code)).toEqual(['STORAGE_FAILED']);
    expect(() => a.dispatch(Noted({ text: 'later' }))).toThrow(expect.objectContaining({ code: 'STORAGE_FAILED' }));
    expect(isRxSliceError(errors[0])).toBe(true);
    a.dispose();
    expect(state(open())).toMatchObject({ seq: 1, count: [1] });
  });

  it('a failed seq-only record (an event that stored nothing) is fatal too: not visible, not numbered again', () => {
    const a = open();
    const committed: number[] = [];
    a.committed$.subscribe((c) => committed.push(c.seq));
    a.dispatch(Noted({ text: 'ok' }));
    disk.full = true;
    expect(() => a.dispatch(NobodyListens(1))).toThrow(expect.objectContaining({ code: 'STORAGE_FAILED' }));
    disk.full = false;
    expect(committed).toEqual([1]);
    expect(a.lastSeq).toBe(1);
    a.dispose();
    expect(state(open())).toMatchObject({ seq: 1 });
  });

  it("a failed background fdatasync ('batch') is reported on errors$ and stops the session", () => {
    vi.useFakeTimers();
    const factory = jsonl({ dir, fsync: 'batch', batchMs: 50 });
    const a = open(factory);
    const errors: RxSliceError[] = [];
    a.errors$.subscribe((e) => errors.push(e));
    a.dispatch(Noted({ text: 'ok' }));
    disk.syncFails = true;
    vi.advanceTimersByTime(60);
    disk.syncFails = false;
    expect(errors.map((e) => [e.code, (e.cause as RxSliceError).code])).toEqual([['STORAGE_FAILED', 'STORAGE_IO']]);
    expect(() => a.dispatch(Noted({ text: 'later' }))).toThrow(expect.objectContaining({ code: 'STORAGE_FAILED' }));
    expect(a.slice(Notes).all()).toEqual([{ text: 'ok' }]);
    a.dispose();
  });

  it('a compromised lock stops writing and is reported on errors$ (never thrown from the timer)', () => {
    const factory = jsonl({ dir, fsync: 'never' });
    const a = open(factory);
    const errors: RxSliceError[] = [];
    a.errors$.subscribe((e) => errors.push(e));
    a.dispatch(Noted({ text: 'ok' }));
    // What proper-lockfile's update timer calls when the lock directory was removed or replaced.
    (factory.journal as unknown as { compromised(e: Error): void }).compromised(new StorageLockCompromisedError(dir, new Error('Unable to update lock within the stale threshold')));
    expect(errors.map((e) => [e.code, (e.cause as RxSliceError).code])).toEqual([['STORAGE_FAILED', 'STORAGE_LOCK_COMPROMISED']]);
    expect(() => a.dispatch(Noted({ text: 'x' }))).toThrow(expect.objectContaining({ code: 'STORAGE_FAILED' }));
    a.dispose();
    expect(state(open())).toMatchObject({ seq: 1, count: [1] });
  });

  it('compacts into a base file and a new journal segment; reopening yields the same state', () => {
    const factory = jsonl({ dir, fsync: 'never', compactBytes: 2000 });
    const a = open(factory);
    for (let i = 0; i < 200; i++) a.dispatch(i % 50 === 49 ? Reset({}) : Noted({ text: `n${i}` }));
    const before = state(a);
    a.dispose();
    const files = readdirSync(dir).filter((f) => f.startsWith('base-') || f.startsWith('journal-'));
    expect(files.filter((f) => f.startsWith('base-'))).toHaveLength(1);
    expect(files.filter((f) => f.startsWith('journal-'))).toHaveLength(1);
    expect(state(open(jsonl({ dir, fsync: 'never', compactBytes: 2000 })))).toEqual(before);
  });

  it('recovers after a compaction cut short: a leftover temp file, or a new base without its journal', () => {
    const a = open(jsonl({ dir, fsync: 'never' }));
    for (let i = 0; i < 5; i++) a.dispatch(Noted({ text: `n${i}` }));
    const before = state(a);
    const journal = (a as unknown as object) && readFileSync(journalOf());
    a.dispose();
    // A temp base that was never renamed is ignored and removed.
    writeFileSync(join(dir, 'base-5.json.tmp'), '{"crc":"garbage');
    // Another protocol's temp file (a process taking the lock's mutex right now) is not the journal's to remove:
    // removing it failed that process's link with ENOENT (the crash suite's four-process lock round).
    writeFileSync(join(dir, 'LOCK.takeover.4242.0123456789abcdef.tmp'), '{}');
    const b = open();
    expect(state(b)).toEqual(before);
    b.dispose();
    expect(existsSync(join(dir, 'base-5.json.tmp'))).toBe(false);
    expect(existsSync(join(dir, 'LOCK.takeover.4242.0123456789abcdef.tmp'))).toBe(true);
    // Compact, then restore the old journal beside the new base (crash before the old pair was removed).
    const c = open(jsonl({ dir, fsync: 'never', compactBytes: 1 }));
    c.dispatch(Noted({ text: 'n5' }));
    const after = state(c);
    c.dispatch(Noted({ text: 'n6' })); // compacts first (base-6), then writes seq 7
    c.dispose();
    expect(existsSync(join(dir, 'base-6.json'))).toBe(true);
    writeFileSync(join(dir, 'journal-0.jsonl'), journal);
    rmSync(join(dir, 'journal-6.jsonl'));
    const d = open();
    expect(state(d)).toEqual(after);
    d.dispose();
    expect(existsSync(join(dir, 'journal-0.jsonl'))).toBe(false);
  });
});

describe('jsonl storage without a session', () => {
  it('replays every op after a reopen: appends, replace, predicate clear, drops, restore (items, times, appended)', () => {
    const def = defineSlice('ops', { policy: 'log', initial: [0] });
    const s = jsonl({ dir, fsync: 'never' })(def) as SliceStorage<unknown>;
    s.extend([1, 2, 3, 4, 5, 6], 10);
    const cap = s.snapshot();
    s.clear((x) => (x as number) % 2 === 0);
    let tx = s.begin();
    tx.append(7, 20);
    tx.dropFront(1);
    tx.dropBack(1);
    tx.dropIndices([0]);
    tx.commit();
    s.replace([9, 8], 30);
    s.append(10, 40);
    tx = s.begin();
    tx.append(99, 50);
    tx.rollback();
    const expected = { items: [...s.all()], appended: s.snapshot().appended };
    expect(expected.items).toEqual([9, 8, 10]);
    tx = s.begin();
    tx.restore(cap, 60);
    tx.commit();
    tx = s.begin();
    tx.append(11, 70);
    tx.commit();
    const afterRestore = { items: [...s.all()], appended: s.snapshot().appended };
    s.dispose();
    const t = jsonl({ dir, fsync: 'never' })(def) as SliceStorage<unknown>;
    opened.push(t);
    expect({ items: [...t.all()], appended: t.snapshot().appended }).toEqual({ items: afterRestore.items, appended: afterRestore.appended });
    expect(t.version).toBe(0);
    const times = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => {
      const x = t.begin();
      const at = x.timeAt(i);
      x.rollback();
      return at;
    });
    expect(times).toEqual([60, 60, 60, 60, 60, 60, 60, 70]);
  });
});

describe('jsonl storage: schema versions', () => {
  const V1 = defineSlice('notes', { policy: 'log', schema: z.string(), reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload.text))] });
  const V3 = defineSlice('notes', {
    policy: 'log',
    schema: z.object({ text: z.string(), tags: z.array(z.string()) }),
    version: 3,
    migrations: { 1: (s: string) => ({ text: s }), 2: (n: { text: string }) => ({ ...n, tags: [] }) },
    reducers: ({ on }) => [on(Noted, (_v, e) => append({ text: e.payload.text, tags: ['v3'] }))],
  });

  it('opens version-1 records under version-3 code (migrated), and a newer version fails clearly', () => {
    const a = createSession({ slices: [V1], storage: jsonl({ dir, fsync: 'never' }) });
    a.dispatch(Noted({ text: 'old' }));
    a.dispose();
    const b = createSession({ slices: [V3], storage: jsonl({ dir, fsync: 'never', compactBytes: 1 }) });
    expect(b.slice(V3).all()).toEqual([{ text: 'old', tags: [] }]);
    b.dispatch(Noted({ text: 'new' })); // written at version 3
    b.dispatch(Noted({ text: 'newer' })); // compacts: the base holds version 3
    b.dispose();
    const c = createSession({ slices: [V3], storage: jsonl({ dir, fsync: 'never' }) });
    expect(c.slice(V3).all()).toEqual([{ text: 'old', tags: [] }, { text: 'new', tags: ['v3'] }, { text: 'newer', tags: ['v3'] }]);
    c.dispose();
    expect(() => createSession({ slices: [V1], storage: jsonl({ dir, fsync: 'never' }) })).toThrow(expect.objectContaining({ code: 'SLICE_VERSION_TOO_NEW' }));
  });
});
