import type { SliceStorage, SliceView, StorageFactory, StorageTransaction, StoredSlice } from '../../src/index';

/**
 * A second SliceStorage backend, written only from the interface (no code of MemoryStorage):
 * every commit publishes a new frozen copy of the array. O(n) per append, so only for tests,
 * but it shows the contract is enough for a session to run on another backend.
 */
function viewOf<TItem>(items: readonly TItem[]): SliceView<TItem> {
  return {
    get isEmpty() {
      return items.length === 0;
    },
    get size() {
      return items.length;
    },
    latest: () => items[items.length - 1],
    all: () => items,
    where: (predicate) => items.filter(predicate),
    at: (index) => items.at(index),
  };
}

export class CopyStorage<TItem> implements SliceStorage<TItem> {
  private items: readonly TItem[];
  private times: readonly number[];
  private appendedCount: number;
  private open = false;
  version = 0;

  constructor(initial: readonly TItem[] = []) {
    this.items = Object.freeze([...initial]);
    this.times = initial.map(() => 0);
    this.appendedCount = initial.length;
  }

  get size(): number {
    return this.items.length;
  }
  all(): readonly TItem[] {
    return this.items;
  }
  latest(): TItem | undefined {
    return this.items[this.items.length - 1];
  }
  view(): SliceView<TItem> {
    return viewOf(this.items);
  }
  snapshot(): StoredSlice<TItem> {
    return { items: this.items, appended: this.appendedCount };
  }

  begin(): StorageTransaction<TItem> {
    if (this.open) throw new Error('CopyStorage: a transaction is already open');
    this.open = true;
    let items = [...this.items];
    let times = [...this.times];
    let appended = this.appendedCount;
    let changed = false;
    const drop = (keep: (index: number) => boolean): TItem[] => {
      const dropped = items.filter((_, i) => !keep(i));
      if (dropped.length > 0) changed = true;
      times = times.filter((_, i) => keep(i));
      items = items.filter((_, i) => keep(i));
      return dropped;
    };
    const close = () => {
      if (!this.open) throw new Error('CopyStorage: the transaction is closed');
      this.open = false;
    };
    return {
      view: () => viewOf(items),
      get changed() {
        return changed;
      },
      get appended() {
        return appended;
      },
      timeAt: (index) => times[index] ?? 0,
      append: (item, at) => {
        items.push(item);
        times.push(at);
        appended++;
        changed = true;
      },
      replace: (next, at) => {
        appended += Math.max(0, next.length - items.length);
        items = [...next];
        times = next.map(() => at);
        changed = true;
      },
      updateAt: (index, item, at) => {
        if (!Number.isInteger(index) || index < 0 || index >= items.length) throw new RangeError(`CopyStorage: no item at ${index}`);
        if (items[index] === item) return;
        items[index] = item;
        times[index] = at;
        changed = true;
      },
      restore: (stored, at) => {
        items = [...stored.items];
        times = stored.items.map(() => at);
        appended = stored.appended;
        changed = true;
      },
      clear: (predicate) => {
        drop((i) => predicate !== undefined && !predicate(items[i] as TItem));
      },
      dropFront: (count) => drop((i) => i >= count),
      dropBack: (count) => {
        const n = items.length;
        return drop((i) => i < n - count);
      },
      dropIndices: (indices) => {
        const set = new Set(indices);
        return drop((i) => !set.has(i));
      },
      commit: () => {
        close();
        if (!changed) return;
        this.items = Object.freeze(items);
        this.times = times;
        this.appendedCount = appended;
        this.version++;
      },
      rollback: close,
    };
  }

  private single(apply: (tx: StorageTransaction<TItem>) => void): void {
    const tx = this.begin();
    try {
      apply(tx);
    } catch (error) {
      tx.rollback();
      throw error;
    }
    tx.commit();
  }
  append(item: TItem, at: number): void {
    this.single((tx) => tx.append(item, at));
  }
  extend(items: readonly TItem[], at: number): void {
    this.single((tx) => items.forEach((item) => tx.append(item, at)));
  }
  replace(items: readonly TItem[], at: number): void {
    this.single((tx) => tx.replace(items, at));
  }
  clear(predicate?: (item: TItem) => boolean): void {
    this.single((tx) => tx.clear(predicate));
  }
  dispose(): void {
    this.items = Object.freeze([]);
  }
}

/** A StorageFactory for CopyStorage; `made` collects every storage it creates. */
export function copyStorage(made: CopyStorage<unknown>[] = []): StorageFactory {
  return <TItem>(slice: { readonly initial: readonly TItem[] }) => {
    const storage = new CopyStorage<TItem>(slice.initial);
    made.push(storage as CopyStorage<unknown>);
    return storage;
  };
}
