import { closeSync, fdatasyncSync, mkdirSync, writeSync } from 'node:fs';
import type { RxSliceError } from '../internal/errors';
import type { SliceDef } from '../slices/reducer';
import { MemoryStorage } from '../storage/memory-storage';
import { TimeColumn } from '../storage/time-column';
import type { StorageJournal, StorageTransaction, StoredSliceDef } from '../storage/slice-storage';
import { lockDirectory, StorageLockedError, type DirectoryLock, type StorageLockCompromisedError } from './directory-lock';
import { HeldRecords } from './held-records';
import { compactJournal } from './journal-compaction';
import { JournalEncoder } from './journal-encoder';
import { journalFileOf, recoverJournal, type JsonlRecovery, type JsonlRecoveryMode, type RawSlice } from './journal-recovery';
import type { JsonlFsync, JsonlOptions } from './jsonl-options';
import { JsonlSliceStorage } from './jsonl-slice-storage';
import { JsonlTransaction } from './jsonl-transaction';
import { recoveredContent, type RecoveredContent } from './recovered-content';
import { StorageIOError } from './storage-io-error';
import { quote } from '../internal/quote';

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
  private recovered<TItem>(def: StoredSliceDef<TItem>): RecoveredContent<TItem> {
    return recoveredContent(def, this.raw.get(def.name), this.freeze);
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

  /** Writes the live state as a new base file and starts an empty journal (see `compactJournal`). */
  compact(): void {
    this.compactDue = false;
    compactJournal(this);
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
