import type { SliceView } from './slice-view';

/**
 * What the storage passes to a window when it decides what to evict.
 * `now` is the session scheduler's time (ms) of the event being reduced, `timeAt(i)` the
 * envelope time (ms) at which item `i` entered the slice, `appended` how many items were
 * ever appended to the slice (a stable counter for seeded sampling).
 */
export interface WindowContext {
  /** The session scheduler's time (ms) of the event being reduced. */
  readonly now: number;
  /** The seq of the envelope being reduced. */
  readonly seq: number;
  /** How many items were ever appended to the slice, counting pending appends. */
  readonly appended: number;
  /** The envelope time (ms) at which the pending item at `index` entered the slice. */
  timeAt(index: number): number;
  /**
   * What this slice's window passed to `remember` at its last evaluation, with what changed in
   * the slice since; `undefined` when the storage keeps no memo or the content was changed in a
   * way it does not track (a clear, a restore). Lets a window update its result instead of
   * scanning every item again.
   */
  readonly memo?: WindowMemo | undefined;
  /**
   * Keeps `state` (an immutable value) with the slice until the next evaluation, as
   * `memo.state`. The state must describe the content after this evaluation's decision is
   * applied. Absent when the storage keeps no memo.
   */
  readonly remember?: ((state: unknown) => void) | undefined;
}

/**
 * A window's remembered state and how the slice changed since it was remembered: the items
 * at indices below `stableBelow` are the same items (`===`) at the same indices as then,
 * except at the indices listed in `changed` (ascending order is not guaranteed; duplicates are
 * possible). Items at `stableBelow` and after, and any item past the remembered size, are new.
 */
export interface WindowMemo {
  readonly state: unknown;
  readonly stableBelow: number;
  readonly changed: readonly number[];
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

/** Which items an {@link EvictionPolicy} chooses when a window is over its bound. */
export type EvictionKind = 'fifo' | 'lifo' | 'priority' | 'sampling';

/**
 * Chooses which items a window evicts once it holds `excess` items too many.
 * Made by `EvictionPolicy.fifo()`, `.lifo()`, `.priority(fn)` or `.sampling({ seed })`
 * and passed to a window (`SliceWindow.count(1000, { eviction: EvictionPolicy.lifo() })`),
 * to `defineSlice({ window, eviction })` or to `session.slice(def).configure({ eviction })`.
 *
 * @remarks Policies are pure: the same view and context give the same decision, which is
 * what makes eviction replayable and safe to roll back.
 */
export interface EvictionPolicy<TItem = unknown> {
  readonly kind: EvictionKind;
  /** e.g. `fifo`, `sampling(seed 7)`. */
  readonly description: string;
  /**
   * Picks `excess` items to evict among `candidates` (ascending indices into `view`), or
   * among every item when `candidates` is `undefined`. `excess` is between 1 and the
   * number of candidates.
   */
  select(
    view: SliceView<TItem>,
    candidates: readonly number[] | undefined,
    excess: number,
    ctx: WindowContext,
  ): EvictionDecision;
}

/**
 * The contract a slice window fulfils: after each reducer, inside the same commit, the
 * session asks the window what to evict from the pending items. A window of your own inside
 * `SliceWindow.composite` counts as a bounding window (like `count` and `time`): the composite
 * evicts what it evicts unless a predicate window of the composite protects the item.
 */
export interface SliceWindowPolicy<TItem> {
  /** A short description for errors and docs, e.g. `count(1000)`. */
  readonly description: string;
  /**
   * Decides what to evict from the pending items `view` (pure: same view and context, same decision).
   * Called after each reducer of a commit that changed the slice, inside the commit.
   */
  evict(view: SliceView<TItem>, ctx: WindowContext): EvictionDecision;
  /**
   * The same window with another eviction policy. Bounded windows (`count`, `predicate`, and a
   * `composite` holding one) have it; windows that evict by another rule (`time`) do not.
   * May throw when the policy does not suit the window (sampling in a predicate window).
   */
  withEviction?(eviction: EvictionPolicy<TItem>): SliceWindowPolicy<TItem>;
}
