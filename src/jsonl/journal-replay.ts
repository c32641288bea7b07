import type { StorageTransaction } from '../storage/slice-storage';
import type { JournalOp } from './journal-format';
import { clip } from '../internal/quote';

// Replaying journal ops: how a slice's recorded ops (append, replace, restore, update, clear, drops)
// rebuild its items, on plain arrays when a journal is opened (./recovered-content.ts) and through a
// storage transaction when a recording is read back. Apart from the journal so that both readers
// share one definition of what an op means.

/** @internal The content of a slice while its records are replayed: the live items are `items[start..]`. */
export interface ReplayState<TItem> {
  items: TItem[];
  times: number[];
  start: number;
  appended: number;
}

/**
 * @internal Applies one journal op to plain arrays, exactly as {@link applyJournalOp} applies it
 * through a {@link MemoryStorage} transaction (same items, times and `appended`), in O(the op).
 */
export function replayJournalOp<TItem>(s: ReplayState<TItem>, op: JournalOp, at: number, migrate: (stored: readonly unknown[]) => TItem[]): void {
  switch (op[0]) {
    case 'a': {
      const added = migrate(op[1]);
      for (const item of added) {
        s.items.push(item);
        s.times.push(at);
      }
      s.appended += added.length;
      return;
    }
    case 'r':
      replaceAll(s, migrate(op[1]), at);
      return;
    case 's':
      replaceAll(s, migrate(op[1]), at);
      s.appended = op[2];
      return;
    case 'u': {
      // The arrays are this replay's own (copied or built by it): the item and its time are swapped in place.
      const i = s.start + updateIndex(op, s.items.length - s.start);
      const item = migrate(op[2])[0] as TItem;
      // As the memory backend: the same item changes nothing (its time stays).
      if (s.items[i] === item) return;
      s.items[i] = item;
      s.times[i] = at;
      return;
    }
    case 'c':
      if (s.items.length > s.start) {
        s.items = [];
        s.times = [];
        s.start = 0;
      }
      return;
    case 'f': {
      s.start += Math.max(0, Math.min(op[1], s.items.length - s.start));
      if (s.start >= 1024 && s.start * 2 >= s.items.length) {
        s.items = s.items.slice(s.start);
        s.times = s.times.slice(s.start);
        s.start = 0;
      }
      return;
    }
    case 'b': {
      const n = Math.max(0, Math.min(op[1], s.items.length - s.start));
      s.items.length -= n;
      s.times.length -= n;
      return;
    }
    case 'i': {
      const indices = op[1];
      if (indices.length === 0) return;
      const items: TItem[] = [];
      const times: number[] = [];
      let k = 0;
      for (let i = s.start; i < s.items.length; i++) {
        if (k < indices.length && indices[k] === i - s.start) k++;
        else {
          items.push(s.items[i] as TItem);
          times.push(s.times[i] as number);
        }
      }
      s.items = items;
      s.times = times;
      s.start = 0;
      return;
    }
    default:
      throw new TypeError(`Unknown journal op ${clip(JSON.stringify(op))}`);
  }
}

/** `MemoryTransaction.replace`: an item identical to the one at its index keeps its time. */
function replaceAll<TItem>(s: ReplayState<TItem>, items: readonly TItem[], at: number): void {
  const size = s.items.length - s.start;
  const n = items.length;
  const times = new Array<number>(n);
  for (let i = 0; i < n; i++) times[i] = i < size && s.items[s.start + i] === items[i] ? (s.times[s.start + i] as number) : at;
  s.appended += Math.max(0, n - size);
  s.items = Array.from(items);
  s.times = times;
  s.start = 0;
}

/** @internal Applies one journal op to a transaction (`items` migrates and freezes stored items). */
export function applyJournalOp<TItem>(tx: StorageTransaction<TItem>, op: JournalOp, at: number, items: (stored: readonly unknown[]) => TItem[]): void {
  switch (op[0]) {
    case 'a':
      for (const item of items(op[1])) tx.append(item, at);
      return;
    case 'r':
      tx.replace(items(op[1]), at);
      return;
    case 's':
      tx.restore({ items: items(op[1]), appended: op[2] }, at);
      return;
    case 'u': {
      const index = updateIndex(op, tx.view().size);
      const item = items(op[2])[0] as TItem;
      if (tx.updateAt !== undefined) tx.updateAt(index, item, at);
      else tx.replace(tx.view().all().map((old, i) => (i === index ? item : old)), at);
      return;
    }
    case 'c':
      tx.clear();
      return;
    case 'f':
      tx.dropFront(op[1]);
      return;
    case 'b':
      tx.dropBack(op[1]);
      return;
    case 'i':
      tx.dropIndices(op[1]);
      return;
    default:
      throw new TypeError(`Unknown journal op ${clip(JSON.stringify(op))}`);
  }
}

/**
 * The index of an update op, checked against a content of `size` items: a journal never holds an
 * update of a missing item, so one that does is damaged.
 * @throws TypeError when the op is malformed or its index is not an item.
 */
function updateIndex(op: readonly ['u', number, readonly unknown[]], size: number): number {
  const index = op[1];
  if (!Number.isInteger(index) || index < 0 || index >= size || !Array.isArray(op[2]) || op[2].length !== 1) {
    throw new TypeError(`Journal op ${clip(JSON.stringify(op))} updates no item of a slice holding ${size} items.`);
  }
  return index;
}
