import { isArrayView } from '../internal/array-view';
import type { SliceView } from '../slices/slice-view';
import type { WindowMemo } from '../slices/window-contract';
import type { StorageTransaction, StoredSlice } from './slice-storage';
import { TimeColumn } from './time-column';
import { ascendingWithin, checkUpdateIndex, cloneContent, COMPACT_MIN, Content, EMPTY, NO_CHANGES, Window } from './memory-content';

/** @internal What a {@link MemoryStage} needs from its storage (`MemoryStorage`). */
export interface StageOwner<TItem> {
  /** The committed content. */
  readonly content: Content<TItem>;
  readonly freeze: boolean;
  readonly sealOnReplace: boolean;
  /** Commits `next` (see `MemoryStorage.swap`). */
  swap(next: Content<TItem>, restored: StoredSlice<TItem> | undefined, rewrote: boolean): void;
}

/**
 * The stage of a memory slice: the next content while an event changes the slice. One per
 * storage, reused: `begin()` points it at the committed content (nothing copied); the first
 * change makes the next content object (copy on write), later changes of the same event mutate
 * that object in place; `commit()` swaps it in as the storage's content, `rollback()` drops it.
 */
export class MemoryStage<TItem> implements StorageTransaction<TItem> {
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

  constructor(private readonly owner: StageOwner<TItem>) {
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
    this.rewriteWith(new Content(adopted, TimeColumn.adopt(times), 0, n, appended, sealed, memo));
  }
  updateAt(index: number, item: TItem, at: number): void {
    const c = this.content;
    const size = c.end - c.start;
    checkUpdateIndex(index, size);
    if (c.buf[c.start + index] === item) return;
    // Versions share the buffer below their end, which is never written again: the next content
    // gets its own copy (two native slices, no per-item work), with the item and its time swapped.
    const buf = c.buf.slice(c.start, c.end);
    buf[index] = item;
    const times = c.times.toArray(c.start, c.end);
    times[index] = at;
    // What `replace` records for the same change: the one index changed, nothing new past `size`.
    const memo = c.memo === undefined ? undefined : { state: c.memo.state, stableBelow: Math.min(c.memo.stableBelow, size), changed: [...c.memo.changed, index] };
    const sealed = this.owner.sealOnReplace;
    if (sealed && this.owner.freeze) Object.freeze(buf);
    this.rewriteWith(new Content(buf, TimeColumn.adopt(times), 0, size, c.appended, sealed, memo));
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
    // One item for one (a state slice's `onLatest`): the next content is made whole; a sealed
    // buffer is frozen when first handed out (see `handedOut`), not here.
    const sealed = this.owner.sealOnReplace;
    this.rewriteWith(new Content([item], sealed ? TimeColumn.sealedSingle(at) : TimeColumn.single(at), 0, 1, c.appended, sealed, undefined));
  }
  /** Makes `next`, built whole by this stage over arrays of its own, the staged content (a rewrite). */
  private rewriteWith(next: Content<TItem>): void {
    this.content = next;
    this.owned = true;
    this.keep = next.buf.length;
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
  /**
   * How many of `count` items a drop removes (at most the size); when any, the staged content is
   * made this stage's own and the stage marked as rewritten.
   */
  private startDrop(count: number): number {
    const c = this.content;
    const n = Math.min(count, c.end - c.start);
    if (n <= 0) return 0;
    this.write();
    this.restored = undefined;
    this.rewrote = true;
    return n;
  }
  dropFront(count: number): readonly TItem[] {
    const n = this.startDrop(count);
    if (n === 0) return EMPTY;
    const c = this.content;
    const dropped = n === 1 ? [c.buf[c.start] as TItem] : c.buf.slice(c.start, c.start + n);
    c.start += n;
    if (c.start >= COMPACT_MIN && c.start * 2 >= c.buf.length) this.own(c);
    this.changed = true;
    return dropped;
  }
  dropBack(count: number): readonly TItem[] {
    const n = this.startDrop(count);
    if (n === 0) return EMPTY;
    const c = this.content;
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

