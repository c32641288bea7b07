import type { SliceView } from './slice-view';

/**
 * What the storage passes to a window when it decides what to evict.
 * `now` is the session scheduler's time (ms) of the event being reduced, `timeAt(i)` the
 * envelope time (ms) at which item `i` entered the slice, `appended` how many items were
 * ever appended to the slice (a stable counter for seeded sampling).
 */
export interface WindowContext {
  readonly now: number;
  readonly seq: number;
  readonly appended: number;
  timeAt(index: number): number;
}

/**
 * An eviction decision: drop `count` items from the front (oldest) or back (newest), or drop
 * the items at `indices` (ascending). `none` keeps everything.
 */
export type EvictionDecision =
  | { readonly kind: 'none' }
  | { readonly kind: 'front'; readonly count: number }
  | { readonly kind: 'back'; readonly count: number }
  | { readonly kind: 'indices'; readonly indices: readonly number[] };

/**
 * The contract a slice window fulfils: after each reducer, inside the same commit, the
 * session asks the window what to evict from the pending items.
 */
export interface SliceWindowPolicy<TItem> {
  /** A short description for errors and docs, e.g. `count(1000)`. */
  readonly description: string;
  evict(view: SliceView<TItem>, ctx: WindowContext): EvictionDecision;
}
