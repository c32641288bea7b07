import type { SliceView } from '../slices/slice-view';
import type { EvictionDecision, EvictionPolicy, SliceWindowPolicy, WindowContext, WindowMemo } from '../slices/window-contract';
import { complement } from './index-decisions';

/** Options of the bounded windows (`count`, `predicate`). */
export interface BoundedWindowOptions<TItem> {
  /**
   * Which items go when the window is over its bound: for `count`, which items are evicted; for
   * `predicate`, which matching items lose its protection (so FIFO protects the newest matches).
   * Default `EvictionPolicy.fifo()` (the oldest).
   */
  readonly eviction?: EvictionPolicy<TItem>;
}

/** Marks a time window: in a composite beside windows that choose, it keeps its own rule. */
export const TIMED = Symbol('rxslice.window.timed');

/**
 * A window's verdict on the current content, planned from what it remembered at its last
 * evaluation. A bounding window (`count`, `time`, any other) answers `evicted`: the items it
 * lets go. A predicate window answers `protected`: the items it keeps whatever the bounds
 * say (ascending indices). `after` gives the state to remember once the final decision (its
 * own, or a composite's) is applied.
 */
export interface Planned {
  readonly evicted?: EvictionDecision;
  readonly protected?: readonly number[];
  after(applied: EvictionDecision, size: number): unknown;
}
export const PLAN = Symbol('rxslice.window.plan');
/** Marks a composite and holds its windows, so that composites nest flat. */
export const PARTS = Symbol('rxslice.window.parts');
/** Marks a predicate window (it protects its matches rather than bounding the slice). */
export const PROTECTS = Symbol('rxslice.window.protects');
/** Marks a count window that samples (it cannot share the slice with a predicate window). */
export const SAMPLES = Symbol('rxslice.window.samples');
export type Plannable<TItem> = SliceWindowPolicy<TItem> & {
  [PLAN](view: SliceView<TItem>, ctx: WindowContext, memo: WindowMemo | undefined): Planned;
};
export const isPlannable = <TItem>(w: SliceWindowPolicy<TItem>): w is Plannable<TItem> => PLAN in w;

/** A plannable window's `evict`: plan from the slice's memo, remember the state after the decision. */
export function evictPlanned<TItem>(window: Plannable<TItem>, view: SliceView<TItem>, ctx: WindowContext): EvictionDecision {
  const planned = window[PLAN](view, ctx, ctx.memo);
  const decision = planned.evicted ?? complement(planned.protected ?? [], view.size);
  if (ctx.remember !== undefined) ctx.remember(planned.after(decision, view.size));
  return decision;
}
