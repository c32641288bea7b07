import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { arrayView } from '../internal/array-view';
import type { SliceView } from '../slices/slice-view';
import type { SliceStorage, StorageFactory, StorageTransaction, StoredSlice } from './slice-storage';
import { CommittedWrites } from './committed-writes';
import { TimeColumn } from './time-column';
import { Content, handedOut, Window } from './memory-content';
import { MemoryStage } from './memory-stage';

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
 * since a version (`appendedOnlySince`, for incremental computed slices) in O(1). `append`,
 * `extend`, `replace` and `clear` are one transaction each (see `CommittedWrites`).
 *
 * @example
 * ```ts
 * const s = new MemoryStorage<number>();
 * s.append(1, Date.now());
 * s.all(); // [1]
 * ```
 */
export class MemoryStorage<TItem> extends CommittedWrites<TItem> implements SliceStorage<TItem> {
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
    super();
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
    return this.beginStage();
  }
  /** @internal {@link MemoryStorage.begin}, typed as the memory stage it hands out (for a backend that wraps this one). */
  beginStage(): MemoryStage<TItem> {
    if (this.stage.open) throw new Error(!DEV ? codedMessage('E55', 'MemoryStorage') : 'MemoryStorage: a transaction is already open on this slice.');
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
