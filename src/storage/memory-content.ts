import { arrayView } from '../internal/array-view';
import type { SliceView } from '../slices/slice-view';
import type { WindowMemo } from '../slices/window-contract';
import type { TimeColumn } from './time-column';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { clip } from '../internal/quote';

// @internal The immutable per-version content of a memory slice and the views over it
// (`MemoryStorage` commits contents, `MemoryStage` makes the next one).

/** Compact the buffer once this many dead items sit in front of the live window. */
export const COMPACT_MIN = 1024;

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
export class Content<TItem> {
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
export const cloneContent = <TItem>(c: Content<TItem>, memo: WindowMemo | undefined = c.memo): Content<TItem> =>
  new Content(c.buf, c.times, c.start, c.end, c.appended, c.sealed, memo);

export const EMPTY: readonly never[] = Object.freeze([]);

export const NO_CHANGES: readonly number[] = Object.freeze([]);

/** True when `indices` are strictly ascending integers in `[0, size)`. */
export function ascendingWithin(indices: readonly number[], size: number): boolean {
  let previous = -1;
  for (const i of indices) {
    if (!Number.isInteger(i) || i <= previous || i >= size) return false;
    previous = i;
  }
  return true;
}

/**
 * Checks the index of an `updateAt` against a content of `size` items.
 * @throws RangeError when `index` is not an integer in `[0, size)`.
 */
export function checkUpdateIndex(index: number, size: number): void {
  if (Number.isInteger(index) && index >= 0 && index < size) return;
  throw new RangeError(
    !DEV
      ? codedMessage('E49', `updateAt(${clip(index)}) of ${size} items`)
      : `updateAt(${clip(index)}, ...) names no item: ${
          size === 0 ? 'the slice is empty' : `the slice holds ${size} item${size === 1 ? '' : 's'}, so the index must be an integer from 0 to ${size - 1}`
        }. Use append(...) to add an item.`,
  );
}

/**
 * The buffer of `c`, frozen first when it is handed out whole (a sealed buffer is never written
 * again, so it may be frozen when first read rather than when it was made: `replaceLast` makes a
 * one-item buffer per event, and most are never read as an array). `freeze`: the storage's option.
 */
export function handedOut<TItem>(c: Content<TItem>, freeze: boolean): TItem[] {
  const buf = c.buf;
  if (freeze && c.sealed && c.start === 0 && c.end === buf.length && !Object.isFrozen(buf)) Object.freeze(buf);
  return buf;
}

/** What a {@link Window} reads: the committed content (the storage) or the staged one (the stage). */
export interface ContentSource<TItem> {
  readonly content: Content<TItem>;
  /** The storage's `freeze` option (arrays handed out are frozen). */
  readonly freeze: boolean;
}

export class Window<TItem> implements SliceView<TItem> {
  /** `owner`: set on the committed view, whose `all()` is the storage's (one array per version). */
  constructor(
    private readonly src: ContentSource<TItem>,
    private readonly owner?: { all(): readonly TItem[] },
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
