import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isArrayView } from '../internal/array-view';
import { RxSliceError } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import { migrateItems } from '../slices/migrations';
import type { SliceDef } from '../slices/reducer';
import type { SliceView } from '../slices/slice-view';
import type { WindowMemo } from '../slices/window-contract';
import type { MemoryStage } from '../storage/memory-stage';
import { MemoryStorage } from '../storage/memory-storage';
import { TimeColumn } from '../storage/time-column';
import type { HeldJournal, SliceStorage, StorageFactory, StorageJournal, StorageTransaction, StoredSlice, StoredSliceDef } from '../storage/slice-storage';
import { lockDirectory, StorageLockedError, type DirectoryLock, type StorageLockCompromisedError } from './directory-lock';
import { JournalEncoder } from './journal-encoder';
import { OpLog } from './op-log';
import { encodeBase, type CorruptStorageError, type JournalOp } from './journal-format';
import { journalFileOf, recoverJournal, type JsonlRecovery, type JsonlRecoveryMode, type RawSlice } from './journal-recovery';
import { replayJournalOp } from './journal-replay';
import { fsyncDirectory } from './snapshot-file';
import { HeldRecords } from './held-records';
import { messageOf, quote } from '../internal/quote';

/**
 * When the journal is flushed to stable storage (fsync), after SQLite's `synchronous` levels:
 *
 * - `'always'` (SQLite FULL): every record is fdatasync'ed before its event becomes visible.
 *   A power loss loses no committed event. Slowest.
 * - `'batch'` (SQLite NORMAL, default): records are written at once (a killed process loses
 *   nothing: the OS holds them) and fdatasync'ed at most `batchMs` later, in the background. A
 *   power loss or OS crash can lose the events of the last `batchMs`; reopening truncates the
 *   torn tail and yields an earlier committed prefix.
 * - `'never'` (SQLite OFF): the OS decides when to write. A killed process still loses
 *   nothing; a power loss can lose any number of recent events, and on some file systems leave
 *   damage before the tail (then `recovery: 'point-in-time'` keeps the good prefix).
 */
export type JsonlFsync = 'always' | 'batch' | 'never';

/** Options of {@link jsonl}. */
export interface JsonlOptions {
  /** The directory (created if missing). One journal for every slice made by this factory. */
  readonly dir: string;
  /** Default `'batch'`. See {@link JsonlFsync}. */
  readonly fsync?: JsonlFsync;
  /** Default `'tolerate-torn-tail'`. See {@link JsonlRecoveryMode}. */
  readonly recovery?: JsonlRecoveryMode;
  /** With `fsync: 'batch'`: the longest time (ms) a written record waits for its fdatasync. Default 200. */
  readonly batchMs?: number;
  /** ms after which a lock not refreshed by its holder is stale and taken over (proper-lockfile; ≥ 2000). Default 10 000. */
  readonly stale?: number;
  /**
   * Compact (rewrite the live state as a base file, start an empty journal) when the journal
   * exceeds this many bytes and twice the last base file. Default 8 MiB.
   */
  readonly compactBytes?: number;
  /** Deep-freeze recovered items and freeze the arrays handed out. Default `true`. */
  readonly freeze?: boolean;
  /** Told what each open recovered (also kept as `factory.recovery`). */
  readonly onRecovery?: (recovery: JsonlRecovery) => void;
}

/** A storage factory writing every slice it makes to one journal in `dir` (see {@link jsonl}). */
export interface JsonlStorageFactory extends StorageFactory {
  /** What the last open recovered (undefined before the directory was first opened: by `openJournal` or a first slice). */
  readonly recovery: JsonlRecovery | undefined;
  /** The open journal (undefined when closed). @internal */
  readonly journal: JsonlJournal | undefined;
  /** Flushes, closes and unlocks (the session's `dispose()` does it when it disposes every slice). Idempotent. */
  close(): void;
  /**
   * Opens the directory now (lock, base file, journal), before any slice is made, and keeps it
   * open until the hold is released: `createSession` calls it, so the session continues after
   * the journal's last `seq` even when no slice of the directory exists yet, and records the
   * `seq` of events that stored nothing. @throws as the first slice's open would.
   */
  readonly openJournal: () => HeldJournal;
}

/** Thrown (wrapped in the session's `StorageFailedError`) when a write, fsync or compaction failed. */
export class StorageIOError extends RxSliceError {
  override readonly name = 'StorageIOError';
  constructor(readonly file: string, readonly operation: string, cause: unknown) {
    super('STORAGE_IO', `Storage ${operation} of ${quote(file)} failed: ${messageOf(cause)}. The failure is fatal; nothing more is written.`, { cause });
  }
}

const listOf = (items: readonly unknown[]): readonly unknown[] => (isArrayView(items) ? Array.from(items) : items);

/**
 * @internal The open journal of one directory: lock, file descriptor, recovered data and the
 * slice storages that write to it.
 */
export class JsonlJournal implements StorageJournal {
  lastSeq = 0;
  baseSeq = 0;
  /** Bytes in the current journal segment and in the last base file. */
  journalBytes = 0;
  baseBytes = 0;
  fd = -1;
  failure: RxSliceError | undefined = undefined;
  closed = false;
  readonly storages = new Map<string, JsonlSliceStorage<any>>();
  readonly raw = new Map<string, RawSlice>();
  /** What `peek` read of slices not open yet (the same array on every peek). */
  private readonly peeked = new Map<string, readonly unknown[]>();
  recovery!: JsonlRecovery;
  private lock: DirectoryLock | undefined = undefined;
  private report: ((error: RxSliceError) => void) | undefined = undefined;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** Encodes each record's line into a reused buffer. */
  private readonly encoder = new JournalEncoder();
  /** Set by {@link deferWrites}: records go to {@link held} until {@link writeDeferred}. */
  private deferring = false;
  private readonly held = new HeldRecords();
  private compactDue = false;
  private live = 0;
  readonly fsync: JsonlFsync;
  readonly batchMs: number;
  readonly compactBytes: number;
  readonly freeze: boolean;

  constructor(
    readonly dir: string,
    options: JsonlOptions,
    private readonly onClose: () => void,
  ) {
    this.fsync = options.fsync ?? 'batch';
    this.batchMs = options.batchMs ?? 200;
    this.compactBytes = options.compactBytes ?? 8 * 1024 * 1024;
    this.freeze = options.freeze ?? true;
    mkdirSync(dir, { recursive: true });
    this.lock = lockDirectory(dir, { stale: options.stale ?? 10_000, onCompromised: (e) => this.compromised(e) });
    try {
      this.load(options.recovery ?? 'tolerate-torn-tail');
    } catch (e) {
      this.release();
      throw e;
    }
  }

  get journalFile(): string {
    return journalFileOf(this.dir, this.baseSeq);
  }

  /** Reads base + journal, checks them, truncates what recovery allows, opens the journal for appends (see `recoverJournal`). */
  private load(mode: JsonlRecoveryMode): void {
    const found = recoverJournal(this.dir, mode, this.raw, this.fsync !== 'never');
    this.fd = found.fd;
    this.baseSeq = found.baseSeq;
    this.lastSeq = found.lastSeq;
    this.journalBytes = found.journalBytes;
    this.baseBytes = found.baseBytes;
    this.recovery = found.recovery;
  }

  /** Makes the storage of `def` from its recovered data (migrated to the slice's version). */
  open<TItem>(def: SliceDef<string, TItem>): JsonlSliceStorage<TItem> {
    if (this.storages.has(def.name)) throw new StorageLockedError(this.dir, { pid: process.pid, host: 'this process', since: 'an earlier open' });
    const { items, times, appended } = this.recovered(def);
    const inner = new MemoryStorage(items, 0, { freeze: this.freeze, sealOnReplace: def.policy === 'state' });
    if (times !== undefined) inner.content.times = TimeColumn.from(times);
    inner.content.appended = appended;
    this.raw.delete(def.name);
    this.peeked.delete(def.name);
    const storage = new JsonlSliceStorage(this, def.name, def.version ?? 1, inner);
    this.storages.set(def.name, storage);
    this.live++;
    return storage;
  }

  /**
   * The items this journal holds for a slice that none of its storages opened (see
   * `StorageJournal.peek`): recovered as `open` would recover them, without opening the slice.
   */
  peek<TItem>(def: StoredSliceDef<TItem>): readonly TItem[] | undefined {
    if (this.storages.has(def.name) || !this.raw.has(def.name)) return undefined;
    let items = this.peeked.get(def.name) as readonly TItem[] | undefined;
    // A copy (the base's array may become an opened storage's own), kept: the same array on every
    // peek, as nothing changes a slice that is not open.
    if (items === undefined) this.peeked.set(def.name, (items = Object.freeze(this.recovered(def).items.slice())));
    return items;
  }

  /** The recovered content of `def` (base, then the journal's records, migrated to `def.version`): fresh arrays. */
  private recovered<TItem>(def: StoredSliceDef<TItem>): { items: TItem[]; times: number[] | undefined; appended: number } {
    const version = def.version ?? 1;
    const raw = this.raw.get(def.name);
    const migrate = (items: readonly unknown[], v: number): TItem[] => {
      const out = v === version ? (items as TItem[]) : migrateItems(def as SliceDef<string, TItem>, items, v);
      if (this.freeze) for (const item of out) deepFreeze(item);
      return out;
    };
    let items: TItem[];
    let times: number[] | undefined;
    let appended: number;
    if (raw?.base?.items !== undefined) {
      const base = raw.base;
      items = migrate(base.items as readonly unknown[], base.v);
      if (Array.isArray(base.times) && base.times.length === items.length) times = base.times;
      appended = base.appended ?? items.length;
    } else {
      items = def.initial as TItem[];
      appended = items.length;
    }
    if (raw !== undefined && raw.records.length > 0) {
      // Replays every record into plain arrays with the memory backend's semantics, then loads
      // the result once (one memory transaction per record cost more than the replay itself).
      const state = { items: items.slice(), times: times === undefined ? items.map(() => 0) : times.slice(), start: 0, appended };
      for (const rec of raw.records) {
        for (const op of rec.ops) replayJournalOp(state, op, rec.at, (stored) => migrate(stored, rec.v));
      }
      items = state.start === 0 ? state.items : state.items.slice(state.start);
      // A fresh array either way: the backend owns it.
      times = state.start === 0 && state.times !== times ? state.times : state.times.slice(state.start);
      appended = state.appended;
    } else if (times !== undefined) {
      times = times.slice();
    }
    return { items, times, appended };
  }

  setReporter(report: (error: RxSliceError) => void): void {
    this.report = report;
  }

  /**
   * Writes the record of event `seq`: one line holding the ops of every transaction of `txs`
   * that belongs to this journal and changed something (none: nothing is written), then marks
   * them journaled. Returns whether it wrote. Fatal on a failed write; compacts first when due.
   */
  commit(seq: number, at: number, txs: readonly StorageTransaction<any>[]): boolean {
    let first = 0;
    while (first < txs.length && !this.records(txs[first])) first++;
    if (first === txs.length) return false;
    this.startRecord(seq, at);
    const encoder = this.encoder;
    for (let i = first; i < txs.length; i++) {
      const tx = txs[i];
      if (this.records(tx)) encoder.slice(tx.owner.opsHead, i === first, tx.ops);
    }
    this.write(seq, encoder.finish());
    for (let i = first; i < txs.length; i++) {
      const tx = txs[i];
      if (tx instanceof JsonlTransaction && tx.owner.journal === this) tx.journaled = true;
    }
    return true;
  }

  /**
   * Writes the seq-only record of event `seq`, which stored nothing: a record with no slices
   * (`"slices":{}`, read by every version of the format as a record that changes nothing), so
   * that a reopen continues after it. Fatal on a failed write, like {@link commit}.
   */
  commitSeq(seq: number, at: number): void {
    this.startRecord(seq, at);
    this.write(seq, this.encoder.finish());
  }

  /** Checks that record `seq` may be written now (compacting first when due) and starts its line. */
  private startRecord(seq: number, at: number): void {
    if (seq <= this.lastSeq) throw new RangeError(`JSONL storage ${quote(this.dir)}: event seq ${seq} is not above the stored seq ${this.lastSeq}.`);
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new StorageIOError(this.journalFile, 'write', new Error('the storage is closed'));
    if (this.compactDue) {
      // The base holds the state after every record so far: the held ones are written first.
      this.writeHeld();
      this.compact();
    }
    this.encoder.start(seq, this.lastSeq, at);
  }

  /** Keeps the journal open for a holder that made no slice (see {@link JsonlStorageFactory.openJournal}); {@link detach} ends it. */
  hold(): void {
    this.live++;
  }

  /** Whether `tx` is a transaction of this journal with ops to record. */
  private records(tx: StorageTransaction<any> | undefined): tx is JsonlTransaction<unknown> {
    return tx instanceof JsonlTransaction && tx.owner.journal === this && tx.ops.length !== 0;
  }

  /** Writes the line the encoder holds (`length` bytes) as record `seq` (fatal on failure), or holds it while deferring. */
  private write(seq: number, length: number): void {
    if (this.deferring) {
      this.held.add(this.encoder.bytes, length);
      this.lastSeq = seq;
      this.journalBytes += length;
      if (this.journalBytes > this.compactBytes && this.journalBytes > 2 * this.baseBytes) this.compactDue = true;
      return;
    }
    try {
      let off = 0;
      const bytes = this.encoder.bytes;
      while (off < length) off += writeSync(this.fd, bytes, off, length - off);
      if (this.fsync === 'always') fdatasyncSync(this.fd);
    } catch (e) {
      throw this.fail(new StorageIOError(this.journalFile, this.fsync === 'always' ? 'write + fdatasync' : 'write', e));
    }
    this.lastSeq = seq;
    this.journalBytes += length;
    this.scheduleFlush();
    if (this.journalBytes > this.compactBytes && this.journalBytes > 2 * this.baseBytes) this.compactDue = true;
  }

  /** With `fsync: 'batch'`: the fdatasync of what was written, at most `batchMs` later. */
  private scheduleFlush(): void {
    if (this.fsync === 'batch' && this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.batchMs);
      this.timer.unref?.();
    }
  }

  /**
   * Holds the records of the events committed from now on in memory, in order, until
   * {@link writeDeferred} writes them in one go (see `StorageJournal.deferWrites`).
   */
  deferWrites(): void {
    this.deferring = true;
  }

  /** Writes the records held since {@link deferWrites} (fatal on failure) and writes each record at once again. */
  writeDeferred(): void {
    this.deferring = false;
    this.writeHeld();
  }

  /** Writes the held records in one call, fdatasync'ed with `fsync: 'always'` (fatal on failure). */
  private writeHeld(): void {
    if (this.held.length === 0) return;
    if (this.failure !== undefined) throw this.failure;
    try {
      this.held.writeTo(this.fd);
      if (this.fsync === 'always') fdatasyncSync(this.fd);
    } catch (e) {
      throw this.fail(new StorageIOError(this.journalFile, this.fsync === 'always' ? 'write + fdatasync' : 'write', e));
    }
    this.scheduleFlush();
  }

  /** The background fdatasync of `'batch'`. */
  private flush(): void {
    this.timer = undefined;
    if (this.closed || this.failure !== undefined) return;
    try {
      fdatasyncSync(this.fd);
    } catch (e) {
      const error = this.fail(new StorageIOError(this.journalFile, 'fdatasync', e));
      this.report?.(error);
    }
  }

  /** Makes `error` the journal's fatal failure (the first one wins); returns it. */
  fail(error: RxSliceError): RxSliceError {
    this.failure ??= error;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    return this.failure;
  }

  private compromised(error: StorageLockCompromisedError): void {
    if (this.closed) return;
    this.fail(error);
    this.report?.(error);
  }

  /**
   * Writes the committed state of every slice as `base-<lastSeq>.json` (temp + fsync + rename +
   * directory fsync), starts `journal-<lastSeq>.jsonl`, then removes the old pair. A crash at
   * any instant leaves either the old pair (the new base was not renamed yet) or the new base,
   * whose journal is empty or absent: the same state either way.
   */
  compact(): void {
    this.compactDue = false;
    // Nothing since the base (the new pair would have the old pair's names: removing the old
    // pair would remove it).
    if (this.lastSeq === this.baseSeq) return;
    const parts: string[] = [];
    for (const [name, storage] of this.storages) {
      const c = storage.inner.content;
      parts.push(`${JSON.stringify(name)}:${JSON.stringify({ v: storage.schemaVersion, items: Array.from(storage.inner.all()), times: c.times.toArray(c.start, c.end), appended: c.appended })}`);
    }
    for (const [name, raw] of this.raw) {
      parts.push(`${JSON.stringify(name)}:${JSON.stringify({ ...(raw.base ?? { v: 1 }), tail: raw.records })}`);
    }
    const text = encodeBase(this.lastSeq, `{${parts.join(',')}}`);
    const oldJournal = this.journalFile;
    const oldBase = join(this.dir, `base-${this.baseSeq}.json`);
    const oldBaseSeq = this.baseSeq;
    const baseFile = join(this.dir, `base-${this.lastSeq}.json`);
    try {
      const tmp = `${baseFile}.tmp`;
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, baseFile);
      fsyncDirectory(baseFile);
      this.baseSeq = this.lastSeq;
      const fd2 = openSync(this.journalFile, 'a');
      fsyncDirectory(baseFile);
      closeSync(this.fd);
      this.fd = fd2;
      this.journalBytes = 0;
      this.baseBytes = Buffer.byteLength(text);
      unlinkSync(oldJournal);
      if (oldBaseSeq > 0) unlinkSync(oldBase);
    } catch (e) {
      throw this.fail(new StorageIOError(baseFile, 'compaction', e));
    }
  }

  /** A slice storage was disposed: the last one closes the journal. */
  detach(): void {
    if (--this.live <= 0) this.close();
  }

  /** Flushes (unless `fsync: 'never'`), closes and unlocks. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      // Closed while deferring (disposed during a durable batch): what is held is written first
      // (a failure is kept as the journal's, not thrown: closing goes on).
      if (this.failure === undefined && this.held.length > 0 && this.fd >= 0) {
        try {
          this.held.writeTo(this.fd);
        } catch (e) {
          this.fail(new StorageIOError(this.journalFile, 'write', e));
        }
      }
      if (this.failure === undefined && this.fsync !== 'never' && this.fd >= 0) fdatasyncSync(this.fd);
    } finally {
      if (this.fd >= 0) closeSync(this.fd);
      this.fd = -1;
      this.release();
    }
  }

  private release(): void {
    const lock = this.lock;
    this.lock = undefined;
    try {
      lock?.release();
    } catch {
      // a compromised lock is not ours to remove any more
    }
    this.onClose();
  }
}

/**
 * @internal A transaction that records its ops for the journal and applies them to the
 * in-memory transaction underneath (reused: one per storage).
 */
class JsonlTransaction<TItem> implements StorageTransaction<TItem> {
  /** The memory stage the ops are applied to (the storage's `inner.beginStage()`). */
  inner!: MemoryStage<TItem>;
  /** The ops recorded for the event being reduced (none: nothing to journal). */
  readonly ops = new OpLog();
  /** Set when the session's journal commit wrote this transaction's ops. */
  journaled = false;
  lastAt = 0;
  /** This transaction as the list a journal commits (a commit without a session). */
  readonly alone: readonly StorageTransaction<TItem>[] = [this];
  constructor(readonly owner: JsonlSliceStorage<TItem>) {}

  view(): SliceView<TItem> {
    return this.inner.view();
  }
  get changed(): boolean {
    return this.inner.changed;
  }
  get appended(): number {
    return this.inner.appended;
  }
  get windowMemo(): WindowMemo | undefined {
    return this.inner.windowMemo;
  }
  get rememberWindow(): ((state: unknown) => void) | undefined {
    return this.inner.rememberWindow;
  }
  timeAt(index: number): number {
    return this.inner.timeAt(index);
  }
  append(item: TItem, at: number): void {
    this.inner.append(item, at);
    this.lastAt = at;
    this.ops.append(item);
  }
  replace(items: readonly TItem[], at: number): void {
    this.inner.replace(items, at);
    this.lastAt = at;
    this.ops.op(['r', listOf(items)]);
  }
  /**
   * The last item replaced by `item` (an empty slice: appended), through the memory stage's own
   * `replaceLast` (one item for one, no copy of the content). Journaled as the op the session's
   * fallback wrote before (`append`, or `replace` with the whole new content), so records read
   * as before.
   */
  replaceLast(item: TItem, at: number): void {
    const inner = this.inner;
    const size = inner.view().size;
    if (size === 0) {
      this.append(item, at);
      return;
    }
    inner.replaceLast(item, at);
    this.lastAt = at;
    if (size === 1) this.ops.replaceOne(item);
    else this.ops.op(['r', Array.from(inner.view().all())]);
  }
  updateAt(index: number, item: TItem, at: number): void {
    // The same item changes nothing: no op is recorded. (A bad index: the stage throws, nothing recorded.)
    if (Number.isInteger(index) && index >= 0 && this.inner.view().at(index) === item) return;
    this.inner.updateAt(index, item, at);
    this.lastAt = at;
    this.ops.op(['u', index, [item]]);
  }
  restore(stored: StoredSlice<TItem>, at: number): void {
    this.inner.restore(stored, at);
    this.lastAt = at;
    this.ops.op(['s', listOf(stored.items), stored.appended]);
  }
  clear(predicate?: (item: TItem) => boolean): void {
    if (this.inner.view().size === 0) return;
    if (predicate === undefined) {
      this.inner.clear();
      this.ops.op(['c']);
      return;
    }
    // The backend asks `predicate` once per item, in order: the indices it drops are recorded.
    const indices: number[] = [];
    let i = 0;
    this.inner.clear((item) => {
      const drop = predicate(item);
      if (drop) indices.push(i);
      i++;
      return drop;
    });
    if (indices.length > 0) this.ops.op(['i', indices]);
  }
  dropFront(count: number): readonly TItem[] {
    const dropped = this.inner.dropFront(count);
    if (dropped.length > 0) this.ops.op(['f', dropped.length]);
    return dropped;
  }
  dropBack(count: number): readonly TItem[] {
    const dropped = this.inner.dropBack(count);
    if (dropped.length > 0) this.ops.op(['b', dropped.length]);
    return dropped;
  }
  dropIndices(indices: readonly number[]): readonly TItem[] {
    const dropped = this.inner.dropIndices(indices);
    if (dropped.length > 0) this.ops.op(['i', [...indices]]);
    return dropped;
  }
  commit(): void {
    try {
      // Used without a session (or by a session without the journal hook): one record per commit.
      if (!this.journaled && this.ops.length > 0) {
        const journal = this.owner.journal;
        try {
          journal.commit(journal.lastSeq + 1, this.lastAt, this.alone);
        } catch (e) {
          this.inner.rollback();
          throw e;
        }
      }
      this.inner.commit();
    } finally {
      this.ops.clear();
      this.journaled = false;
    }
  }
  rollback(): void {
    this.ops.clear();
    this.journaled = false;
    this.inner.rollback();
  }
}

/**
 * A slice stored in a JSONL journal: its items live in memory (a {@link MemoryStorage}), so
 * reads are O(1) and `size`/`isEmpty` never touch the file; each commit appends one record.
 * Made by {@link jsonl}.
 */
export class JsonlSliceStorage<TItem> implements SliceStorage<TItem> {
  private readonly tx: JsonlTransaction<TItem>;
  /** @internal `"<name>":{"v":<schemaVersion>,"ops":` as UTF-8 — what a record holds before this slice's ops. */
  readonly opsHead: Uint8Array;
  /** @internal Made by {@link jsonl}: the journal that owns the slice constructs it. */
  constructor(
    /** @internal The open journal of the directory this slice writes to. */
    readonly journal: JsonlJournal,
    readonly name: string,
    readonly schemaVersion: number,
    /** @internal */
    readonly inner: MemoryStorage<TItem>,
  ) {
    this.tx = new JsonlTransaction(this);
    this.opsHead = Uint8Array.from(Buffer.from(`${JSON.stringify(name)}:{"v":${schemaVersion},"ops":`, 'utf8'));
  }
  get version(): number {
    return this.inner.version;
  }
  get size(): number {
    return this.inner.size;
  }
  all(): readonly TItem[] {
    return this.inner.all();
  }
  latest(): TItem | undefined {
    return this.inner.latest();
  }
  view(): SliceView<TItem> {
    return this.inner.view();
  }
  begin(): StorageTransaction<TItem> {
    const failure = this.journal.failure;
    if (failure !== undefined) throw failure;
    this.tx.inner = this.inner.beginStage();
    return this.tx;
  }
  snapshot(): StoredSlice<TItem> {
    return this.inner.snapshot();
  }
  append(item: TItem, at: number): void {
    const tx = this.begin();
    tx.append(item, at);
    tx.commit();
  }
  extend(items: readonly TItem[], at: number): void {
    const tx = this.begin();
    for (const item of items) tx.append(item, at);
    tx.commit();
  }
  replace(items: readonly TItem[], at: number): void {
    const tx = this.begin();
    tx.replace(items, at);
    tx.commit();
  }
  clear(predicate?: (item: TItem) => boolean): void {
    const tx = this.begin();
    tx.clear(predicate);
    tx.commit();
  }
  private disposed = false;
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.inner.dispose();
    this.journal.detach();
  }
}

/**
 * Durable slice storage: one append-only JSONL journal in `options.dir` for every slice made
 * by this factory, with the items kept in memory. Each committed event that changed at least
 * one of its slices appends ONE record (CRC32, the slices' ops and schema versions) before the
 * change becomes visible, so after a crash at any instant the directory reopens at the state
 * after a prefix of committed events. An event that changed nothing stored (no stored slice
 * listens to it, or only memory slices changed) appends a seq-only record (`"slices":{}`), so
 * a reopened session never numbers an event with a `seq` given out before (one `write` per such
 * event; see docs/guide/storage.md for its cost). Opening (synchronous, when the session is created, through
 * `openJournal`, before any slice is made) takes an inter-process lock, reads the base file and
 * the journal, checks CRCs and seq continuity, migrates items of older schema versions
 * (`migrateItems`) and applies `recovery`; the session continues numbering after the recovered
 * `seq`, also when its only slices on this storage are made later (a statechart's, the sagas').
 *
 * @param options `dir`; `fsync` (default `'batch'`, see {@link JsonlFsync}); `recovery`
 * (default `'tolerate-torn-tail'`, see {@link JsonlRecoveryMode}); `stale` (lock, ms).
 * @returns A factory for `createSession({ storage })`, for every slice or per policy.
 * @throws {@link StorageLockedError} (on open) when another live writer holds the directory;
 * {@link CorruptStorageError} when damage is found that `recovery` may not skip;
 * `SliceVersionError`/`MigrationError` when stored items cannot be migrated.
 * A failed write or fsync later makes the session throw `StorageFailedError` (fatal).
 * @remarks Costs: an event appends one line (O(its ops)); `replace` writes the whole new
 * content, `updateAt` only the item it swaps; when the journal grows past `compactBytes` and twice the last base, the next
 * commit first compacts (writes the live state, O(items)). After a reopen, items brought in by
 * `replace` or `restore` carry that record's time (a time window sees them as of then), not
 * the times they had before; as in a live `replace`, an item identical (`===`, so a primitive)
 * to the one at its index keeps that one's time. `dispose()` of the session
 * flushes, closes and unlocks.
 * @example
 * ```ts
 * const session = createSession({ slices: [Plan, Messages], storage: jsonl({ dir: '.agent/session', fsync: 'always' }) });
 * session.dispatch(StepAdded({ step: 'a' })); // one line in .agent/session/journal-0.jsonl, fsync'ed
 * session.dispose();                          // reopen: the same state, seq continues
 * ```
 */
export function jsonl(options: JsonlOptions): JsonlStorageFactory {
  let journal: JsonlJournal | undefined;
  let recovery: JsonlRecovery | undefined;
  /** The open journal, opened (locked, read) now if it is not. */
  const opened = (): JsonlJournal => {
    if (journal !== undefined) return journal;
    let made: JsonlJournal | undefined;
    const onClose = (): void => {
      if (made !== undefined && journal === made) journal = undefined;
    };
    made = new JsonlJournal(options.dir, options, onClose);
    journal = made;
    recovery = made.recovery;
    options.onRecovery?.(made.recovery);
    return made;
  };
  const factory = (<TItem>(slice: SliceDef<string, TItem>): SliceStorage<TItem> => opened().open(slice)) as JsonlStorageFactory;
  const openJournal = (): HeldJournal => {
    const held = opened();
    held.hold();
    let released = false;
    return {
      journal: held,
      release() {
        if (released) return;
        released = true;
        held.detach();
      },
    };
  };
  Object.defineProperties(factory, {
    recovery: { get: () => recovery },
    journal: { get: () => journal },
    close: { value: () => journal?.close() },
    openJournal: { value: openJournal },
  });
  return factory;
}
