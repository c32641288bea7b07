import { arrayView, isArrayView } from '../internal/array-view';
import type { SliceView } from '../slices/slice-view';
import type { WindowMemo } from '../slices/window-contract';
import type { SliceStorage, StorageFactory, StorageTransaction, StoredSlice } from './slice-storage';
import { TimeColumn } from './time-column';

/** Compact the buffer once this many dead items sit in front of the live window. */
const COMPACT_MIN = 1024;

/**
 * Internal state of a memory slice: the live items are `buf[start..end)`.
 *
 * Invariant: a buffer is only pushed to by the owner whose `end === buf.length` and only when
 * it is not `sealed` (a sealed buffer was handed out whole, e.g. after `replace`). Indices
 * below `end` are never rewritten, so every view handed out stays valid forever.
 */
interface Cells<TItem> {
  buf: TItem[];
  /** The items' commit times (4-byte offsets, see {@link TimeColumn}), shared like `buf`. */
  times: TimeColumn;
  start: number;
  end: number;
  appended: number;
  sealed: boolean;
  /** The window memo of this content (see `WindowContext.memo`), or `undefined`. */
  memo: WindowMemo | undefined;
}

const EMPTY: readonly never[] = Object.freeze([]);

const copyCells = <TItem>(to: Cells<TItem>, from: Readonly<Cells<TItem>>): void => {
  to.buf = from.buf;
  to.times = from.times;
  to.start = from.start;
  to.end = from.end;
  to.appended = from.appended;
  to.sealed = from.sealed;
  to.memo = from.memo;
};

const NO_CHANGES: readonly number[] = Object.freeze([]);

/** True when `indices` are strictly ascending integers in `[0, size)`. */
function ascendingWithin(indices: readonly number[], size: number): boolean {
  let previous = -1;
  for (const i of indices) {
    if (!Number.isInteger(i) || i <= previous || i >= size) return false;
    previous = i;
  }
  return true;
}

class Window<TItem> implements SliceView<TItem> {
  /** `owner`: set on the committed view, whose `all()` is the storage's (one array per version). */
  constructor(
    private readonly c: Cells<TItem>,
    private readonly owner?: MemoryStorage<TItem>,
  ) {}
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
    if (this.owner !== undefined) return this.owner.all();
    const c = this.c;
    return arrayView(c.buf, c.start, c.end, c.sealed);
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

/**
 * A capture of the cells: a frozen copy, restorable without copying (indices below `end` of a
 * buffer are never rewritten, so the capture stays valid whatever the storage does next).
 */
class CellsToken<TItem> {
  readonly cells: Readonly<Cells<TItem>>;
  constructor(c: Readonly<Cells<TItem>>) {
    // The window memo is not captured: a restore discards it (the window scans once again).
    this.cells = Object.freeze({ buf: c.buf, times: c.times, start: c.start, end: c.end, appended: c.appended, sealed: c.sealed, memo: undefined });
  }
}

class MemoryTransaction<TItem> implements StorageTransaction<TItem> {
  changed = false;
  open = false;
  private readonly c: Cells<TItem> = { buf: [], times: new TimeColumn(), start: 0, end: 0, appended: 0, sealed: false, memo: undefined };
  private readonly pendingView = new Window<TItem>(this.c);
  private beginLength = 0;
  /**
   * Items of `c.buf` below this index existed before this transaction used the buffer (views
   * and captures may hold them): `dropBack` never truncates the buffer below it.
   */
  private keep = 0;
  /** The capture this transaction restored, while nothing else has changed the cells. */
  private restored: StoredSlice<TItem> | undefined = undefined;
  /** True once this transaction did anything but append (see `SliceStorage.appendedOnlySince`). */
  private rewrote = false;

  constructor(private readonly owner: MemoryStorage<TItem>) {}

  /** @internal Re-arms this (reused) transaction over the committed cells. */
  reset(committed: Cells<TItem>): void {
    copyCells(this.c, committed);
    this.beginLength = this.keep = committed.buf.length;
    this.restored = undefined;
    this.rewrote = false;
    this.changed = false;
    this.open = true;
  }
  get appended(): number {
    return this.c.appended;
  }
  view(): SliceView<TItem> {
    return this.pendingView;
  }
  timeAt(index: number): number {
    return this.c.times.get(this.c.start + index) ?? 0;
  }
  get windowMemo(): WindowMemo | undefined {
    return this.c.memo;
  }
  /** Stable (one per transaction object): the session passes it to the window as `ctx.remember`. */
  readonly rememberWindow = (state: unknown): void => {
    this.c.memo = { state, stableBelow: Number.POSITIVE_INFINITY, changed: NO_CHANGES };
  };
  /** Makes the buffer appendable: O(1) when this transaction owns its tail, else one copy. */
  private own(): void {
    const c = this.c;
    c.buf = c.buf.slice(c.start, c.end);
    c.times = c.times.slice(c.start, c.end);
    c.end -= c.start;
    c.start = 0;
    c.sealed = false;
    this.keep = 0;
  }
  append(item: TItem, at: number): void {
    const c = this.c;
    this.restored = undefined;
    if (c.sealed || c.end !== c.buf.length) this.own();
    c.buf.push(item);
    c.times.push(at);
    c.end++;
    c.appended++;
    this.changed = true;
  }
  replace(items: readonly TItem[], at: number): void {
    const c = this.c;
    const n = items.length;
    const times = new Array<number>(n);
    const memo = c.memo;
    let changed: number[] | undefined;
    for (let i = 0; i < n; i++) {
      const j = c.start + i;
      if (j < c.end && c.buf[j] === items[i]) {
        times[i] = c.times.get(j) as number;
      } else {
        times[i] = at;
        // Items past the old end are new to the window anyway (their index >= stableBelow or the remembered size).
        if (memo !== undefined && j < c.end) (changed ??= memo.changed.slice()).push(i);
      }
    }
    if (memo !== undefined && (changed !== undefined || n < memo.stableBelow)) {
      c.memo = { state: memo.state, stableBelow: Math.min(memo.stableBelow, n), changed: changed ?? memo.changed };
    }
    c.appended += Math.max(0, n - (c.end - c.start));
    // The items array becomes the buffer itself; views of other buffers are copied first.
    // State slices seal (and freeze) it so readers get the array itself; log slices keep it
    // appendable so that the next append stays O(1) (readers get read-only views).
    const adopted = (isArrayView(items) || Object.isFrozen(items) && !this.owner.sealOnReplace ? Array.from(items) : items) as TItem[];
    c.buf = adopted;
    c.sealed = this.owner.sealOnReplace;
    if (c.sealed && this.owner.freeze && !Object.isFrozen(adopted)) Object.freeze(adopted);
    c.times = TimeColumn.adopt(times);
    c.start = 0;
    c.end = n;
    this.keep = n;
    this.restored = undefined;
    this.rewrote = true;
    this.changed = true;
  }
  restore(stored: StoredSlice<TItem>, at: number): void {
    const token = stored.token;
    if (token instanceof CellsToken) {
      copyCells(this.c, token.cells as Cells<TItem>);
      this.c.memo = undefined;
      this.keep = this.c.buf.length;
      // Committed as is, the cells equal the capture's: the storage hands out `stored` again.
      this.restored = stored;
      this.rewrote = true;
      this.changed = true;
      return;
    }
    this.c.memo = undefined;
    this.replace(stored.items, at);
    this.c.appended = stored.appended;
  }
  clear(predicate?: (item: TItem) => boolean): void {
    const c = this.c;
    if (c.end === c.start) return;
    c.memo = undefined;
    this.restored = undefined;
    this.rewrote = true;
    if (predicate === undefined) {
      c.buf = EMPTY as unknown as TItem[];
      c.times = new TimeColumn();
      c.start = c.end = 0;
      c.sealed = true;
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
    this.restored = undefined;
    this.rewrote = true;
    const dropped = n === 1 ? [c.buf[c.start] as TItem] : c.buf.slice(c.start, c.start + n);
    c.start += n;
    if (c.start >= COMPACT_MIN && c.start * 2 >= c.buf.length) this.own();
    this.changed = true;
    return dropped;
  }
  dropBack(count: number): readonly TItem[] {
    const c = this.c;
    const n = Math.min(count, c.end - c.start);
    if (n <= 0) return EMPTY;
    this.restored = undefined;
    this.rewrote = true;
    const dropped = c.buf.slice(c.end - n, c.end);
    c.end -= n;
    // Items this transaction pushed may be truncated again; items that were in the buffer
    // before (committed, or held by a capture or view of the same buffer) must stay.
    const floor = Math.max(c.end, this.keep);
    if (!c.sealed && c.buf.length > floor) {
      c.buf.length = floor;
      c.times.truncate(floor);
    }
    this.changed = true;
    return dropped;
  }
  dropIndices(indices: readonly number[]): readonly TItem[] {
    if (indices.length === 0) return EMPTY;
    const c = this.c;
    this.restored = undefined;
    this.rewrote = true;
    if (indices.length <= 4 && ascendingWithin(indices, c.end - c.start)) {
      // A few items (a predicate window evicting one per append): copy with native slices, then splice.
      const buf = c.buf.slice(c.start, c.end);
      const dropped = new Array<TItem>(indices.length);
      for (let k = indices.length - 1; k >= 0; k--) {
        const i = indices[k] as number;
        dropped[k] = buf[i] as TItem;
        buf.splice(i, 1);
      }
      const times = c.times.toArray(c.start, c.end);
      for (let k = indices.length - 1; k >= 0; k--) times.splice(indices[k] as number, 1);
      this.adoptOwned(buf, TimeColumn.adopt(times));
      this.changed = true;
      return dropped;
    }
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
        times.push(c.times.get(c.start + i) as number);
      }
    }
    this.adoptOwned(buf, TimeColumn.adopt(times));
    if (dropped.length > 0) this.changed = true;
    return dropped;
  }
  /** Makes fresh arrays, owned by this transaction alone, the live content. */
  private adoptOwned(buf: TItem[], times: TimeColumn): void {
    const c = this.c;
    c.buf = buf;
    c.times = times;
    c.start = 0;
    c.end = buf.length;
    c.sealed = false;
    this.keep = 0;
  }
  commit(): void {
    if (!this.open) return;
    this.open = false;
    if (this.changed) this.owner.settle(this.c, this.restored, this.rewrote);
    this.restored = undefined;
  }
  rollback(): void {
    if (!this.open) return;
    this.open = false;
    this.restored = undefined;
    const committed = this.owner.cells;
    // Undo pushes onto the committed buffer so that its owner can keep appending in O(1).
    if (!committed.sealed && committed.buf.length > this.beginLength) {
      committed.buf.length = this.beginLength;
      committed.times.truncate(this.beginLength);
    }
  }
}

/** Options of {@link memory} and {@link MemoryStorage}. */
export interface MemoryStorageOptions {
  /** Freeze the arrays this storage hands out (items are frozen by the session). Default `true`. */
  readonly freeze?: boolean;
  /**
   * After `replace`, hand readers the replaced array itself (sealed: the next append copies
   * once) instead of keeping it appendable behind read-only views. Default `true`; the
   * `memory()` factory sets it for `'state'` slices only.
   */
  readonly sealOnReplace?: boolean;
}

/**
 * The default storage: items in memory. Appends are O(1) amortized (one shared growing
 * buffer, read through immutable views), front eviction is O(1) amortized (the buffer is
 * compacted once half of it is dead), `replace` and predicate `clear` are O(size). Keeps the
 * slice window's memo (`WindowContext.memo`): `replace` records the indices it changed (in the
 * loop it runs anyway), `clear` and `restore` forget it. Tells whether only appends happened
 * since a version (`appendedOnlySince`, for incremental computed slices) in O(1).
 *
 * @example
 * ```ts
 * const s = new MemoryStorage<number>();
 * s.append(1, Date.now());
 * s.all(); // [1]
 * ```
 */
export class MemoryStorage<TItem> implements SliceStorage<TItem> {
  version = 0;
  /** @internal */
  readonly cells: Cells<TItem>;
  /** @internal */
  readonly freeze: boolean;
  /** @internal */
  readonly sealOnReplace: boolean;
  private readonly tx = new MemoryTransaction<TItem>(this);
  private readonly committedView: Window<TItem>;
  /** The last capture, valid while `version === captureVersion` (one capture per version). */
  private capture: StoredSlice<TItem> | undefined = undefined;
  private captureVersion = -1;
  /** The version of the last commit that did more than append (0: the initial content). */
  private rewrittenAt = 0;
  /** What `all()` returned for version `allVersion` (one array per version: identity is the version). */
  private allItems: readonly TItem[] | undefined = undefined;
  private allVersion = -1;

  constructor(initial: readonly TItem[] = [], at = 0, options: MemoryStorageOptions = {}) {
    this.freeze = options.freeze ?? true;
    this.sealOnReplace = options.sealOnReplace ?? true;
    const buf = [...initial];
    if (this.freeze) Object.freeze(buf);
    this.cells = { buf, times: TimeColumn.filled(initial.length, at), start: 0, end: initial.length, appended: initial.length, sealed: true, memo: undefined };
    this.committedView = new Window<TItem>(this.cells, this);
  }

  get size(): number {
    return this.cells.end - this.cells.start;
  }
  /**
   * The committed items: an immutable array (or read-only view of the shared buffer), the
   * same object on every call until the version changes (`all() === all()`), so
   * reference-equality memoisation and `useSyncExternalStore` see a change only on a commit.
   */
  all(): readonly TItem[] {
    if (this.allVersion === this.version) return this.allItems as readonly TItem[];
    const c = this.cells;
    const items = arrayView(c.buf, c.start, c.end, c.sealed);
    this.allItems = items;
    this.allVersion = this.version;
    return items;
  }
  latest(): TItem | undefined {
    const c = this.cells;
    return c.end > c.start ? c.buf[c.end - 1] : undefined;
  }
  view(): SliceView<TItem> {
    return this.committedView;
  }
  appendedOnlySince(version: number): boolean {
    return version >= this.rewrittenAt && version <= this.version;
  }
  begin(): StorageTransaction<TItem> {
    if (this.tx.open) throw new Error('MemoryStorage: a transaction is already open on this slice.');
    this.tx.reset(this.cells);
    return this.tx;
  }
  /**
   * @internal Commits `next`; `restored` is the capture it equals, when it is one; `rewrote`
   * when the change was more than appends.
   */
  settle(next: Cells<TItem>, restored: StoredSlice<TItem> | undefined, rewrote: boolean): void {
    copyCells(this.cells, next);
    this.version++;
    if (rewrote) this.rewrittenAt = this.version;
    if (restored !== undefined) {
      this.capture = restored;
      this.captureVersion = this.version;
    }
  }
  /**
   * Captures the committed content in O(1), without copying items. Until the next change the
   * same (frozen) capture is returned; after restoring a capture of this backend, that capture.
   */
  snapshot(): StoredSlice<TItem> {
    if (this.capture !== undefined && this.captureVersion === this.version) return this.capture;
    const c = this.cells;
    const capture: StoredSlice<TItem> = Object.freeze({ items: this.all(), appended: c.appended, token: new CellsToken(c) });
    this.capture = capture;
    this.captureVersion = this.version;
    return capture;
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
    this.tx.open = false;
  }
}

/**
 * Storage factory for in-memory slices (the default for both policies).
 * @example
 * ```ts
 * createSession({ slices: [Messages], storage: { log: memory() } });
 * ```
 */
export const memory =
  (options: MemoryStorageOptions = {}): StorageFactory =>
  (slice) =>
    new MemoryStorage(slice.initial, 0, { sealOnReplace: slice.policy === 'state', ...options });
