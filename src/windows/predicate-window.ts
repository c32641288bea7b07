import type { SliceWindowPolicy, WindowMemo, EvictionDecision } from '../slices/window-contract';
import { EvictionPolicy } from './eviction-policy';
import { checkCount, InvalidWindowError } from './invalid-window-error';
import { lowerBound, NONE, without } from './index-decisions';
import { evictPlanned, PLAN, PROTECTS, type BoundedWindowOptions, type Plannable } from './window-plan';

/** What a predicate window remembers: the indices of its matching items in a content of `size` items. */
interface PredicateState {
  readonly owner: object;
  readonly size: number;
  /** Ascending; never mutated once remembered (a new array on each change). */
  readonly matching: readonly number[];
}

/**
 * The matching indices after `applied` removed items from a content of `size` items, or
 * `undefined` when they cannot be derived (the predicate reads the index and items moved, or a
 * decision the storage would apply in a way this does not mirror: unsorted or out-of-range indices).
 */
function matchingAfter(matching: readonly number[], applied: EvictionDecision, size: number, readsIndex: boolean): PredicateStateParts | undefined {
  switch (applied.kind) {
    case 'none':
      return { size, matching };
    case 'back': {
      const count = Math.min(Math.max(applied.count, 0), size);
      const cut = size - count;
      const keep = lowerBound(matching, cut);
      return { size: cut, matching: keep === matching.length ? matching : matching.slice(0, keep) };
    }
    case 'front': {
      const count = Math.min(Math.max(applied.count, 0), size);
      if (count === 0) return { size, matching };
      if (readsIndex) return undefined;
      const next = matching.slice(lowerBound(matching, count)); // a packed copy, shifted in place
      for (let k = 0; k < next.length; k++) next[k] = (next[k] as number) - count;
      return { size: size - count, matching: next };
    }
    case 'indices': {
      const dropped = applied.indices;
      if (dropped.length === 0) return { size, matching };
      for (let k = 0; k < dropped.length; k++) {
        const i = dropped[k] as number;
        if (!Number.isInteger(i) || i < 0 || i >= size || (k > 0 && i <= (dropped[k - 1] as number))) return undefined;
      }
      // Items before the first dropped one keep their index; the others move.
      if (readsIndex && dropped[0] !== size - dropped.length) return undefined;
      const next = matching.slice(); // a packed copy, compacted in place
      let w = 0;
      let d = 0;
      for (let k = 0; k < matching.length; k++) {
        const i = matching[k] as number;
        while (d < dropped.length && (dropped[d] as number) < i) d++;
        if (d < dropped.length && dropped[d] === i) continue;
        next[w++] = i - d;
      }
      next.length = w;
      return { size: size - dropped.length, matching: next };
    }
  }
}
type PredicateStateParts = Omit<PredicateState, 'owner'>;

/** `SliceWindow.predicate`: see {@link SliceWindow} in slice-window.ts. */
export function predicate<TItem = unknown>(
  keep: (item: TItem, index: number) => boolean,
  maxItems: number,
  options: BoundedWindowOptions<TItem> = {},
): SliceWindowPolicy<TItem> {
  const eviction = options.eviction ?? EvictionPolicy.fifo<TItem>();
  const description = `predicate(${keep.name || 'keep'}, ${String(maxItems)}, ${eviction.description})`;
  checkCount(description, 'maxItems', maxItems);
  if (eviction.kind === 'sampling') {
    throw new InvalidWindowError(description, 'sampling needs the whole slice; use SliceWindow.count(n, { eviction }) instead.');
  }
  // A predicate declared with one parameter does not read the index: its result for an item
  // survives the item moving (evictions in front of it). Others are asked again after a move.
  const readsIndex = keep.length !== 1;
  const window: Plannable<TItem> & { readonly [PROTECTS]: true } = {
    description,
    [PROTECTS]: true,
    evict: (view, ctx) => evictPlanned(window, view, ctx),
    withEviction: (next) => predicate(keep, maxItems, { eviction: next }),
    [PLAN](view, ctx, memo) {
      const size = view.size;
      const state = memo?.state as PredicateState | undefined;
      let matching: number[] | readonly number[];
      let owned: boolean;
      let from: number;
      if (state === undefined || state.owner !== window) {
        // Nothing remembered: test every item. view.at reads the storage directly (no array view).
        matching = [];
        owned = true;
        from = 0;
      } else {
        // Items below `from` are the remembered ones at the same index, except `memo.changed`.
        from = Math.min(state.size, (memo as WindowMemo).stableBelow, size);
        matching = state.matching;
        owned = false;
        const stable = lowerBound(matching, from);
        if (stable < matching.length) {
          matching = matching.slice(0, stable);
          owned = true;
        }
        for (const i of (memo as WindowMemo).changed) {
          if (i >= from) continue;
          const at = lowerBound(matching, i);
          const was = matching[at] === i;
          if (keep(view.at(i) as TItem, i) === was) continue;
          if (!owned) {
            matching = matching.slice();
            owned = true;
          }
          if (was) (matching as number[]).splice(at, 1);
          else (matching as number[]).splice(at, 0, i);
        }
      }
      for (let i = from; i < size; i++) {
        if (!keep(view.at(i) as TItem, i)) continue;
        if (!owned) {
          matching = matching.slice();
          owned = true;
        }
        (matching as number[]).push(i);
      }
      // Of the matching items, the eviction policy picks the excess over maxItems; the rest are protected.
      const excess = matching.length - maxItems;
      const unprotected = excess > 0 ? eviction.select(view, matching, excess, ctx) : NONE;
      const candidates = matching;
      return {
        protected: without(matching, unprotected, size),
        after(applied, atSize) {
          const parts = matchingAfter(candidates, applied, atSize, readsIndex);
          return parts === undefined ? undefined : { owner: window, size: parts.size, matching: parts.matching };
        },
      };
    },
  };
  return window;
}
