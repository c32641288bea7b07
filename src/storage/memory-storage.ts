import { arrayView, isArrayView } from '../internal/array-view';
import type { SliceView } from '../slices/slice-view';
import type { WindowMemo } from '../slices/window-contract';
import type { SliceStorage, StorageFactory, StorageTransaction, StoredSlice } from './slice-storage';
import { TimeColumn } from './time-column';

/** Compact the buffer once this many dead items sit in front of the live window. */
const COMPACT_MIN = 1024;

/**
 * One version of a memory slice's content: the live items are `buf[start..end)`.
 *
 * Immutable once committed: a stage that changes a slice makes a new content object (the next
 * version) and the commit swaps it in, so a snapshot holds the content object itself (O(1),
 * nothing copied) and a restore swaps it back. Only the stage that created a content mutates it,
 * and only until its commit.
 *
 * Invariant: a buffer is only pushed to by a content whose `end === buf.length` and only when it
 * is not `sealed` (a sealed buffer was handed out whole, e.g. after `replace`). Indices below
 * `end` are never rewritten, so every view and content handed out stays valid forever.
 */
class Content<TItem> {
  constructor(
    public buf: TItem[],
    /** The items' commit times (4-byte offsets, see {@link TimeColumn}), shared like `buf`. */
    public times: TimeColumn,
    public start: number,
    public end: number,
    public appended: number,
    public sealed: boolean,
    /** The window memo of this content (see `WindowContext.memo`), or `undefined`. */
    public memo: WindowMemo | undefined,
  ) {}
}

/** A new content equal to `c` (owned by the stage that makes it). */
const cloneContent = <TItem>(c: Content<TItem>, memo: WindowMemo | undefined = c.memo): Content<TItem> =>
  new Content(c.buf, c.times, c.start, c.end, c.appended, c.sealed, memo);

const EMPTY: readonly never[] = Object.freeze([]);

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

/**
 * The buffer of `c`, frozen first when it is handed out whole (a sealed buffer is never written
 * again, so it may be frozen when first read rather than when it was made: `replaceLast` makes a
 * one-item buffer per event, and most are never read as an array). `freeze`: the storage's option.
 */
function handedOut<TItem>(c: Content<TItem>, freeze: boolean): TItem[] {
  const buf = c.buf;
  if (freeze && c.sealed && c.start === 0 && c.end === buf.length && !Object.isFrozen(buf)) Object.freeze(buf);
  return buf;
}

/** What a {@link Window} reads: the committed content (the storage) or the staged one (the stage). */
interface ContentSource<TItem> {
  readonly content: Content<TItem>;
  /** The storage's `freeze` option (arrays handed out are frozen). */
  readonly freeze: boolean;
}

class Window<TItem> implements SliceView<TItem> {
  /** `owner`: set on the committed view, whose `all()` is the storage's (one array per version). */
  constructor(
    private readonly src: ContentSource<TItem>,
    private readonly owner?: MemoryStorage<TItem>,
  ) {}
  get isEmpty(): boolean {
    const c = this.src.content;
    return c.end === c.start;
  }
  get size(): number {
    const c = this.src.content;
    return c.end - c.start;
  }
  latest(): TItem | undefined {
    const c = this.src.content;
    return c.end > c.start ? c.buf[c.end - 1] : undefined;
  }
  all(): readonly TItem[] {
    if (this.owner !== undefined) return this.owner.all();
    const c = this.src.content;
    return arrayView(handedOut(c, this.src.freeze), c.start, c.end, c.sealed);
  }
  where(predicate: (item: TItem, index: number) => boolean): TItem[] {
    const { buf, start, end } = this.src.content;
    const out: TItem[] = [];
    for (let i = start; i < end; i++) if (predicate(buf[i] as TItem, i - start)) out.push(buf[i] as TItem);
    return out;
  }
  at(index: number): TItem | undefined {
    const { buf, start, end } = this.src.content;
    const i = index < 0 ? end + index : start + index;
    return i >= start && i < end ? buf[i] : undefined;
  }
}

/**
 * The stage of a memory slice: the next content while an event changes the slice. One per
 * storage, reused: `begin()` points it at the committed content (nothing copied); the first
 * change makes the next content object (copy on write), later changes of the same event mutate
 * that object in place; `commit()` swaps it in as the storage's content, `rollback()` drops it.
 */
class MemoryStage<TItem> implements StorageTransaction<TItem> {
  changed = false;
  open = false;
  /** The staged content: the committed one until the first change, then the next version. */
  content: Content<TItem>;
  /** True when `content` was made by this stage (so it may be mutated in place). */
  private owned = false;
  private readonly pendingView: Window<TItem>;
  private beginLength = 0;
  /**
   * Items of `content.buf` below this index existed before this stage used the buffer (views and
   * captures may hold them): `dropBack` never truncates the buffer below it.
   */
  private keep = 0;
  /** The capture this stage restored, while nothing else has changed the content. */
  private restored: StoredSlice<TItem> | undefined = undefined;
  /** True once this stage did anything but append (see `SliceStorage.appendedOnlySince`). */
  private rewrote = false;

  constructor(private readonly owner: MemoryStorage<TItem>) {
    this.content = owner.content;
    this.pendingView = new Window<TItem>(this);
  }

  /** @internal Opens this (reused) stage over the committed content: three field writes, no copy. */
  arm(): void {
    const committed = this.owner.content;
    this.content = committed;
    this.owned = false;
    this.beginLength = this.keep = committed.buf.length;
    this.restored = undefined;
    this.rewrote = false;
    this.changed = false;
    this.open = true;
  }
  /** The staged content, made this stage's own (the next version) on the first change. */
  private write(): Content<TItem> {
    if (this.owned) return this.content;
    this.owned = true;
    return (this.content = cloneContent(this.content));
  }
  get appended(): number {
    return this.content.appended;
  }
  get freeze(): boolean {
    return this.owner.freeze;
  }
  view(): SliceView<TItem> {
    return this.pendingView;
  }
  timeAt(index: number): number {
    const c = this.content;
    return c.times.get(c.start + index) ?? 0;
  }
  get windowMemo(): WindowMemo | undefined {
    return this.content.memo;
  }
  /** Stable (one per stage object): the session passes it to the window as `ctx.remember`. */
  readonly rememberWindow = (state: unknown): void => {
    this.write().memo = { state, stableBelow: Number.POSITIVE_INFINITY, changed: NO_CHANGES };
  };
  /** Makes the buffer appendable: O(1) when the staged content owns its tail, else one copy. */
  private own(c: Content<TItem>): void {
    c.buf = c.buf.slice(c.start, c.end);
    c.times = c.times.slice(c.start, c.end);
    c.end -= c.start;
    c.start = 0;
    c.sealed = false;
    this.keep = 0;
  }
  append(item: TItem, at: number): void {
    const c = this.write();
    this.restored = undefined;
    if (c.sealed || c.end !== c.buf.length) this.own(c);
    c.buf.push(item);
    c.times.push(at);
    c.end++;
    c.appended++;
    this.changed = true;
  }
  replace(items: readonly TItem[], at: number): void {
    const c = this.content;
    const n = items.length;
    const size = c.end - c.start;
    let memo = c.memo;
    let changed: number[] | undefined;
    let times: number[];
    if (n === size) {
      // The common rewrite (a few items replaced in place): the kept items' times are copied in
      // one go, then only the items that differ get `at` (same result as the loop below).
      times = c.times.toArray(c.start, c.end);
      const buf = c.buf;
      const start = c.start;
      for (let i = 0; i < n; i++) {
        if (buf[start + i] !== items[i]) {
          times[i] = at;
          if (memo !== undefined) (changed ??= memo.changed.slice()).push(i);
        }
      }
    } else {
      times = new Array<number>(n);
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
    }
    if (memo !== undefined && (changed !== undefined || n < memo.stableBelow)) {
      memo = { state: memo.state, stableBelow: Math.min(memo.stableBelow, n), changed: changed ?? memo.changed };
    }
    const appended = c.appended + Math.max(0, n - (c.end - c.start));
    // The items array becomes the buffer itself; views of other buffers are copied first.
    // State slices seal (and freeze) it so readers get the array itself; log slices keep it
    // appendable so that the next append stays O(1) (readers get read-only views).
    const sealed = this.owner.sealOnReplace;
    const adopted = (isArrayView(items) || (Object.isFrozen(items) && !sealed) ? Array.from(items) : items) as TItem[];
    if (sealed && this.owner.freeze && !Object.isFrozen(adopted)) Object.freeze(adopted);
    // The next content is made whole here (no copy of the old one first).
    this.content = new Content(adopted, TimeColumn.adopt(times), 0, n, appended, sealed, memo);
    this.owned = true;
    this.keep = n;
    this.restored = undefined;
    this.rewrote = true;
    this.changed = true;
  }
  replaceLast(item: TItem, at: number): void {
    const c = this.content;
    const size = c.end - c.start;
    if (size === 0) {
      this.append(item, at);
      return;
    }
    if (size > 1 || c.memo !== undefined) {
      const items = c.buf.slice(c.start, c.end - 1);
      items.push(item);
      this.replace(items, at);
      return;
    }
    // One item for one (a state slice's `onLatest`): the next content is made whole, its buffer
    // sealed and frozen when first handed out (see `handedOut`).
    this.content = new Content([item], new TimeColumn([at]), 0, 1, c.appended, true, undefined);
    this.owned = true;
    this.keep = 1;
    this.restored = undefined;
    this.rewrote = true;
    this.changed = true;
  }
  restore(stored: StoredSlice<TItem>, at: number): void {
    const token = stored.token;
    if (token instanceof Content) {
      // The captured content itself becomes the stage (a pointer swap at commit); the window memo
      // is not restored (the window scans once again), so a content holding one is copied without it.
      const c = token as Content<TItem>;
      if (c.memo === undefined) {
        this.content = c;
        this.owned = false;
      } else {
        this.content = cloneContent(c, undefined);
        this.owned = true;
      }
      this.keep = c.buf.length;
      // Committed as is, the content equals the capture's: the storage hands out `stored` again.
      this.restored = stored;
      this.rewrote = true;
      this.changed = true;
      return;
    }
    this.write().memo = undefined;
    this.replace(stored.items, at);
    this.content.appended = stored.appended;
  }
  clear(predicate?: (item: TItem) => boolean): void {
    const c0 = this.content;
    if (c0.end === c0.start) return;
    this.restored = undefined;
    this.rewrote = true;
    if (predicate === undefined) {
      this.content = new Content(EMPTY as unknown as TItem[], new TimeColumn(), 0, 0, c0.appended, true, undefined);
      this.owned = true;
      this.changed = true;
      return;
    }
    this.write().memo = undefined;
    const c = this.content;
    const indices: number[] = [];
    for (let i = c.start; i < c.end; i++) if (predicate(c.buf[i] as TItem)) indices.push(i - c.start);
    this.dropIndices(indices);
  }
  dropFront(count: number): readonly TItem[] {
    const c0 = this.content;
    const n = Math.min(count, c0.end - c0.start);
    if (n <= 0) return EMPTY;
    const c = this.write();
    this.restored = undefined;
    this.rewrote = true;
    const dropped = n === 1 ? [c.buf[c.start] as TItem] : c.buf.slice(c.start, c.start + n);
    c.start += n;
    if (c.start >= COMPACT_MIN && c.start * 2 >= c.buf.length) this.own(c);
    this.changed = true;
    return dropped;
  }
  dropBack(count: number): readonly TItem[] {
    const c0 = this.content;
    const n = Math.min(count, c0.end - c0.start);
    if (n <= 0) return EMPTY;
    const c = this.write();
    this.restored = undefined;
    this.rewrote = true;
    const dropped = c.buf.slice(c.end - n, c.end);
    c.end -= n;
    // Items this stage pushed may be truncated again; items that were in the buffer before
    // (committed, or held by a capture or view of the same buffer) must stay.
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
    const c = this.content;
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
      this.adoptOwned(c, buf, TimeColumn.adopt(times));
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
    if (dropped.length === 0) return dropped;
    this.adoptOwned(c, buf, TimeColumn.adopt(times));
    this.changed = true;
    return dropped;
  }
  /** Makes fresh arrays, owned by this stage alone, the live content. */
  private adoptOwned(from: Content<TItem>, buf: TItem[], times: TimeColumn): void {
    this.content = new Content(buf, times, 0, buf.length, from.appended, false, from.memo);
    this.owned = true;
    this.keep = 0;
  }
  commit(): void {
    if (!this.open) return;
    this.open = false;
    if (this.changed) this.owner.swap(this.content, this.restored, this.rewrote);
    this.restored = undefined;
  }
  rollback(): void {
    if (!this.open) return;
    this.open = false;
    this.restored = undefined;
    const committed = this.owner.content;
    this.content = committed;
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
  /** @internal The committed content (one immutable object per version, swapped in by a commit). */
  content: Content<TItem>;
  /** @internal */
  readonly freeze: boolean;
  /** @internal */
  readonly sealOnReplace: boolean;
  private readonly stage: MemoryStage<TItem>;
  private readonly committedView: Window<TItem>;
  /** The last capture, valid while `version === captureVersion` (one capture per version). */
  private capture: StoredSlice<TItem> | undefined = undefined;
  private captureVersion = -1;
  /** The version of the last commit that did more than append (0: the initial content). */
  private rewrittenAt = 0;
  /** What `all()` returned for version `allVersion` (one array per version: identity is the version). */
  private allItems: readonly TItem[] | undefined = undefined;
  private allVersion = -1;
  /** The `content.appended` from which `all()` makes its next frozen copy (see `all()`). */
  private copyDueAt = 0;

  constructor(initial: readonly TItem[] = [], at = 0, options: MemoryStorageOptions = {}) {
    this.freeze = options.freeze ?? true;
    this.sealOnReplace = options.sealOnReplace ?? true;
    const buf = [...initial];
    if (this.freeze) Object.freeze(buf);
    this.content = new Content(buf, TimeColumn.filled(initial.length, at), 0, initial.length, initial.length, true, undefined);
    this.committedView = new Window<TItem>(this, this);
    this.stage = new MemoryStage<TItem>(this);
  }

  get size(): number {
    const c = this.content;
    return c.end - c.start;
  }
  /**
   * The committed items: an immutable array (or read-only view of the shared buffer), the
   * same object on every call until the version changes (`all() === all()`), so
   * reference-equality memoisation and `useSyncExternalStore` see a change only on a commit.
   *
   * @remarks Which of the two: a frozen copy of the items once as many items were appended
   * since the last copy as that copy held (the first read of a non-empty slice copies), a
   * read-only view otherwise. A copy reads by index at the
   * speed of an array (a view's `Proxy` trap costs ~30× per index), and the doubling rule
   * keeps the copies O(appended items) in total even when every version is read (reading
   * `all()` after each of n appends copies about 2n items, not n²/2). Both are immutable
   * and `Array.isArray`; bench row 23r measures the reads.
   */
  all(): readonly TItem[] {
    if (this.allVersion === this.version) return this.allItems as readonly TItem[];
    const c = this.content;
    const size = c.end - c.start;
    let items: readonly TItem[];
    if (size > 0 && c.appended >= this.copyDueAt && !(c.sealed && c.start === 0 && c.end === c.buf.length)) {
      items = Object.freeze(c.buf.slice(c.start, c.end));
      this.copyDueAt = c.appended + size;
    } else {
      items = arrayView(handedOut(c, this.freeze), c.start, c.end, c.sealed);
    }
    this.allItems = items;
    this.allVersion = this.version;
    return items;
  }
  latest(): TItem | undefined {
    const c = this.content;
    return c.end > c.start ? c.buf[c.end - 1] : undefined;
  }
  view(): SliceView<TItem> {
    return this.committedView;
  }
  appendedOnlySince(version: number): boolean {
    return version >= this.rewrittenAt && version <= this.version;
  }
  begin(): StorageTransaction<TItem> {
    if (this.stage.open) throw new Error('MemoryStorage: a transaction is already open on this slice.');
    this.stage.arm();
    return this.stage;
  }
  /**
   * @internal Commits `next`; `restored` is the capture it equals, when it is one; `rewrote`
   * when the change was more than appends.
   */
  swap(next: Content<TItem>, restored: StoredSlice<TItem> | undefined, rewrote: boolean): void {
    this.content = next;
    this.version++;
    if (rewrote) this.rewrittenAt = this.version;
    if (restored !== undefined) {
      this.capture = restored;
      this.captureVersion = this.version;
      // The restored content's items are the capture's: `all()` hands out that same array again.
      this.allItems = restored.items;
      this.allVersion = this.version;
    }
  }
  /**
   * @internal Whether {@link MemoryStorage.swapCapture} can commit `stored`: a capture of a
   * memory storage whose content holds no window memo (restoring one drops the memo, which takes
   * the staged path), while no stage is open.
   */
  canSwapCapture(stored: StoredSlice<TItem>): boolean {
    const token = stored.token;
    return !this.stage.open && token instanceof Content && token.memo === undefined;
  }
  /**
   * @internal Commits the capture `stored` as the next version, without a stage: what `begin()`,
   * `restore(stored)` and `commit()` do, for a restore that nothing else changes in the same
   * event (the caller checked {@link MemoryStorage.canSwapCapture} for every slice first, so the
   * swaps of one event are all done or none is).
   */
  swapCapture(stored: StoredSlice<TItem>): void {
    this.swap(stored.token as Content<TItem>, stored, true);
  }
  /**
   * Captures the committed content in O(1), without copying items. Until the next change the
   * same (frozen) capture is returned; after restoring a capture of this backend, that capture.
   */
  snapshot(): StoredSlice<TItem> {
    if (this.capture !== undefined && this.captureVersion === this.version) return this.capture;
    const c = this.content;
    // The content object itself: immutable once committed, so nothing is copied.
    const capture: StoredSlice<TItem> = Object.freeze({ items: this.all(), appended: c.appended, token: c });
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
    this.stage.open = false;
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
