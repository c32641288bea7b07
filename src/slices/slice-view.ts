/**
 * A lazy, read-only view of a slice's items at one version, as reducers and readers see it.
 * Nothing is copied: `all()` returns an immutable array, `latest()` the last item.
 */
export interface SliceView<TItem> {
  /** True when the slice holds no item. */
  readonly isEmpty: boolean;
  /** Number of items. */
  readonly size: number;
  /** The last item, or `undefined` when empty. */
  latest(): TItem | undefined;
  /** Every item, oldest first, as an immutable array (O(1), no copy). */
  all(): readonly TItem[];
  /** The items for which `predicate` returns true, oldest first (a new array). */
  where(predicate: (item: TItem, index: number) => boolean): TItem[];
  /** The item at `index` (negative counts from the end), or `undefined`. */
  at(index: number): TItem | undefined;
}
