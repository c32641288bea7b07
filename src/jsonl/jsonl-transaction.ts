import { isArrayView } from '../internal/array-view';
import type { SliceView } from '../slices/slice-view';
import type { WindowMemo } from '../slices/window-contract';
import type { MemoryStage } from '../storage/memory-stage';
import type { StorageTransaction, StoredSlice } from '../storage/slice-storage';
import type { JsonlSliceStorage } from './jsonl-slice-storage';
import { OpLog } from './op-log';

const listOf = (items: readonly unknown[]): readonly unknown[] => (isArrayView(items) ? Array.from(items) : items);

/**
 * @internal A transaction that records its ops for the journal and applies them to the
 * in-memory transaction underneath (reused: one per storage).
 */
export class JsonlTransaction<TItem> implements StorageTransaction<TItem> {
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
