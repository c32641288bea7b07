import type { SliceStorage, StorageTransaction } from './slice-storage';

/** The writes of {@link SliceStorage} that {@link CommittedWrites} implements. */
type Writes<TItem> = Pick<SliceStorage<TItem>, 'begin' | 'append' | 'extend' | 'replace' | 'clear'>;

/**
 * @internal The one-transaction writes of a slice storage (`append`, `extend`, `replace`,
 * `clear` of {@link SliceStorage}), each written over the backend's own `begin()` and the
 * transaction's `commit()`: a backend extends this class and implements `begin()`. Used by the
 * memory backend (`MemoryStorage`) and the JSONL one (`JsonlSliceStorage`), so both mean the
 * same by these calls.
 *
 * @remarks Each call is synchronous: one transaction, committed before it returns (one version,
 * and for a journaled backend one record). It throws what `begin()` (a transaction already open,
 * a failed journal), the transaction's method (a throwing `predicate`) or `commit()` (a failed
 * write) throws, as it is; the transaction is then not committed, and one that failed before
 * `commit()` is rolled back, so nothing changes and the next write opens a transaction as usual.
 * @example
 * ```ts
 * const s = new MemoryStorage<number>();
 * s.extend([1, 2], Date.now()); // one version: s.all() is [1, 2]
 * s.clear((n) => n === 1);      // s.all() is [2]
 * ```
 */
export abstract class CommittedWrites<TItem> implements Writes<TItem> {
  abstract begin(): StorageTransaction<TItem>;
  /** Appends `item` stored at time `at` (ms since the epoch), in one transaction. */
  append(item: TItem, at: number): void {
    this.write((tx) => tx.append(item, at));
  }
  /** Appends `items` in order, all stored at time `at` (ms), in one transaction (one version). */
  extend(items: readonly TItem[], at: number): void {
    this.write((tx) => {
      for (const item of items) tx.append(item, at);
    });
  }
  /** Replaces the content with `items` stored at time `at` (ms), in one transaction. */
  replace(items: readonly TItem[], at: number): void {
    this.write((tx) => tx.replace(items, at));
  }
  /** Removes every item (no `predicate`) or those for which `predicate` returns true, in one transaction. */
  clear(predicate?: (item: TItem) => boolean): void {
    this.write((tx) => tx.clear(predicate));
  }
  /** Runs `apply` in a transaction of its own and commits it; when `apply` throws, rolls it back (nothing changes, the storage takes the next write). */
  private write(apply: (tx: StorageTransaction<TItem>) => void): void {
    const tx = this.begin();
    try {
      apply(tx);
    } catch (error) {
      tx.rollback();
      throw error;
    }
    tx.commit();
  }
}
