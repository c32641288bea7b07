import type { SliceView } from '../slices/slice-view';
import { CommittedWrites } from '../storage/committed-writes';
import type { MemoryStorage } from '../storage/memory-storage';
import type { SliceStorage, StorageTransaction, StoredSlice } from '../storage/slice-storage';
import type { JsonlJournal } from './jsonl-journal';
import { JsonlTransaction } from './jsonl-transaction';

/**
 * A slice stored in a JSONL journal: its items live in memory (a {@link MemoryStorage}), so
 * reads are O(1) and `size`/`isEmpty` never touch the file; each commit appends one record
 * (`append`, `extend`, `replace` and `clear` are one transaction each: see `CommittedWrites`).
 * Made by {@link jsonl}.
 */
export class JsonlSliceStorage<TItem> extends CommittedWrites<TItem> implements SliceStorage<TItem> {
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
    super();
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
  private disposed = false;
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.inner.dispose();
    this.journal.detach();
  }
}
