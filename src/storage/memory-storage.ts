import { arrayView, isArrayView } from '../internal/array-view';
import type { SliceView } from '../slices/slice-view';
import type { SliceStorage, StorageFactory, StorageTransaction, StoredSlice } from './slice-storage';

/** Compact the buffer once this many dead items sit in front of the live window. */
const COMPACT_MIN = 1024;

/**
 * Internal state of a memory slice: the live items are `buf[start..end)`. Buffers are only
 * ever pushed to by the owner whose `end === buf.length`; indices below `end` are never
 * rewritten, so every view handed out stays valid forever.
 */
interface Cells<TItem> {
  buf: TItem[];
  times: number[];
  start: number;
  end: number;
  appended: number;
}

const EMPTY: readonly never[] = Object.freeze([]);

/** A capture of the cells, restorable without copying (buffers below `end` never change). */
class CellsToken<TItem> {
  constructor(readonly cells: Readonly<Cells<TItem>>) {}
}

class Window<TItem> implements SliceView<TItem> {
  constructor(private readonly c: Cells<TItem>) {}
  get isEmpty(): boolean {
    return this.c.end === this.c.start;
  }
  get size(): number {
    return this.c.end - this.c.start;
  }
  latest(): TItem | undefined {
    const c = this.c;
    return c.end > c.start ? c.buf[c.end - 1] : undefined;
  }
  all(): readonly TItem[] {
    return arrayView(this.c.buf, this.c.start, this.c.end);
  }
  where(predicate: (item: TItem, index: number) => boolean): TItem[] {
    const { buf, start, end } = this.c;
    const out: TItem[] = [];
    for (let i = start; i < end; i++) if (predicate(buf[i] as TItem, i - start)) out.push(buf[i] as TItem);
    return out;
  }
  at(index: number): TItem | undefined {
    const { buf, start, end } = this.c;
    const i = index < 0 ? end + index : start + index;
    return i >= start && i < end ? buf[i] : undefined;
  }
}

class MemoryTransaction<TItem> implements StorageTransaction<TItem> {
  changed = false;
  private readonly c: Cells<TItem>;
  private readonly beginLength: number;
  private viewCache: Window<TItem> | undefined;

  constructor(private readonly owner: MemoryStorage<TItem>, committed: Cells<TItem>) {
    this.c = { ...committed };
    this.beginLength = committed.buf.length;
  }

  get appended(): number {
    return this.c.appended;
  }
  view(): SliceView<TItem> {
    return (this.viewCache ??= new Window(this.c));
  }
  timeAt(index: number): number {
    return this.c.times[this.c.start + index] ?? 0;
  }
  /** Makes the buffer appendable in O(1) when possible, copying the live window otherwise. */
  private own(): void {
    const c = this.c;
    if (c.end === c.buf.length && !Object.isFrozen(c.buf)) return;
    c.buf = c.buf.slice(c.start, c.end);
    c.times = c.times.slice(c.start, c.end);
    c.end -= c.start;
    c.start = 0;
  }
  append(item: TItem, at: number): void {
    const c = this.c;
    if (c.end !== c.buf.length || Object.isFrozen(c.buf)) this.own();
    c.buf.push(item);
    c.times.push(at);
    c.end++;
    c.appended++;
    this.changed = true;
  }
  replace(items: readonly TItem[], at: number): void {
    const c = this.c;
    const times = new Array<number>(items.length);
    for (let i = 0; i < items.length; i++) {
      const j = c.start + i;
      times[i] = j < c.end && c.buf[j] === items[i] ? (c.times[j] as number) : at;
    }
    const grown = Math.max(0, items.length - (c.end - c.start));
    c.buf = (Object.isFrozen(items) && Array.isArray(items) && !isArrayView(items) ? items : Object.freeze(Array.from(items))) as TItem[];
    c.times = times;
    c.start = 0;
    c.end = items.length;
    c.appended += grown;
    this.changed = true;
  }
  restore(stored: StoredSlice<TItem>, at: number): void {
    const token = stored.token;
    if (token instanceof CellsToken) {
      Object.assign(this.c, token.cells);
      this.changed = true;
      return;
    }
    this.replace(stored.items, at);
    this.c.appended = stored.appended;
  }
  clear(predicate?: (item: TItem) => boolean): void {
    const c = this.c;
    if (c.end === c.start) return;
    if (predicate === undefined) {
      c.buf = EMPTY as unknown as TItem[];
      c.times = [];
      c.start = c.end = 0;
      this.changed = true;
      return;
    }
    const indices: number[] = [];
    for (let i = c.start; i < c.end; i++) if (predicate(c.buf[i] as TItem)) indices.push(i - c.start);
    this.dropIndices(indices);
  }
  dropFront(count: number): readonly TItem[] {
    const c = this.c;
    const n = Math.min(count, c.end - c.start);
    if (n <= 0) return EMPTY;
    const dropped = c.buf.slice(c.start, c.start + n);
    c.start += n;
    if (c.start >= COMPACT_MIN && c.start * 2 >= c.buf.length) {
      c.buf = c.buf.slice(c.start, c.end);
      c.times = c.times.slice(c.start, c.end);
      c.end -= c.start;
      c.start = 0;
    }
    this.changed = true;
    return dropped;
  }
  dropBack(count: number): readonly TItem[] {
    const c = this.c;
    const n = Math.min(count, c.end - c.start);
    if (n <= 0) return EMPTY;
    const dropped = c.buf.slice(c.end - n, c.end);
    c.end -= n;
    // Items this transaction pushed may be truncated again; committed ones must stay.
    const floor = Math.max(c.end, this.owner.committedEnd(c.buf));
    if (c.buf.length > floor && !Object.isFrozen(c.buf)) {
      c.buf.length = floor;
      c.times.length = floor;
    }
    this.changed = true;
    return dropped;
  }
  dropIndices(indices: readonly number[]): readonly TItem[] {
    if (indices.length === 0) return EMPTY;
    const c = this.c;
    const dropped: TItem[] = [];
    const buf: TItem[] = [];
    const times: number[] = [];
    let k = 0;
    for (let i = 0; i < c.end - c.start; i++) {
      if (k < indices.length && indices[k] === i) {
        dropped.push(c.buf[c.start + i] as TItem);
        k++;
      } else {
        buf.push(c.buf[c.start + i] as TItem);
        times.push(c.times[c.start + i] as number);
      }
    }
    c.buf = buf;
    c.times = times;
    c.start = 0;
    c.end = buf.length;
    this.changed = dropped.length > 0 || this.changed;
    return dropped;
  }
  commit(): void {
    this.owner.settle(this, this.changed ? this.c : undefined);
  }
  rollback(): void {
    const committed = this.owner.cells;
    // Undo pushes onto the committed buffer so that its owner can keep appending in O(1).
    if (committed.buf.length > this.beginLength && !Object.isFrozen(committed.buf)) {
      committed.buf.length = this.beginLength;
      committed.times.length = this.beginLength;
    }
    this.owner.settle(this, undefined);
  }
}

/**
 * The default storage: items in memory. Appends are O(1) amortized (one shared growing
 * buffer, read through immutable views), front eviction is O(1) amortized (the buffer is
 * compacted once half of it is dead), `replace` and predicate `clear` are O(size).
 */
export class MemoryStorage<TItem> implements SliceStorage<TItem> {
  version = 0;
  /** @internal */
  cells: Cells<TItem>;
  private open: MemoryTransaction<TItem> | undefined;
  private readonly committedView: Window<TItem>;

  constructor(initial: readonly TItem[] = [], at = 0) {
    this.cells = { buf: Object.freeze([...initial]) as TItem[], times: initial.map(() => at), start: 0, end: initial.length, appended: initial.length };
    this.committedView = new Window<TItem>(this.cells);
  }

  get size(): number {
    return this.cells.end - this.cells.start;
  }
  all(): readonly TItem[] {
    return arrayView(this.cells.buf, this.cells.start, this.cells.end);
  }
  latest(): TItem | undefined {
    const c = this.cells;
    return c.end > c.start ? c.buf[c.end - 1] : undefined;
  }
  view(): SliceView<TItem> {
    return this.committedView;
  }
  begin(): StorageTransaction<TItem> {
    if (this.open) throw new Error('MemoryStorage: a transaction is already open on this slice.');
    this.open = new MemoryTransaction(this, this.cells);
    return this.open;
  }
  /** @internal The committed end when `buf` is the committed buffer, else 0. */
  committedEnd(buf: readonly TItem[]): number {
    return buf === this.cells.buf ? this.cells.end : 0;
  }
  /** @internal */
  settle(tx: MemoryTransaction<TItem>, next: Cells<TItem> | undefined): void {
    if (this.open !== tx) return;
    this.open = undefined;
    if (next === undefined) return;
    Object.assign(this.cells, next);
    this.version++;
  }
  snapshot(): StoredSlice<TItem> {
    const c = this.cells;
    return {
      items: this.all(),
      times: arrayView(c.times, c.start, c.end),
      appended: c.appended,
      token: new CellsToken({ ...c }),
    };
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
  dispose(): void {
    this.open = undefined;
  }
}

/**
 * Storage factory for in-memory slices (the default for both policies).
 * @example
 * ```ts
 * createSession({ slices: [Messages], storage: { log: memory() } });
 * ```
 */
export const memory = (): StorageFactory => (slice) => new MemoryStorage(slice.initial);
