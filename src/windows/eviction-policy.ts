import type { EvictionDecision, EvictionKind, EvictionPolicy as EvictionPolicyContract } from '../slices/window-contract';
import { InvalidWindowError } from './invalid-window-error';
import { seededIndex } from '../internal/seeded-random';

export type { EvictionKind };

/**
 * Chooses which items a window evicts once it holds `excess` items too many: the
 * {@link EvictionPolicyContract} (declared in `slices/window-contract`), named here beside its
 * implementations. Implement it to write a policy of your own.
 */
export type EvictionPolicy<TItem = unknown> = EvictionPolicyContract<TItem>;

const FIFO: EvictionPolicy<any> = {
  kind: 'fifo',
  description: 'fifo',
  select: (_view, candidates, excess) =>
    candidates === undefined ? { kind: 'front', count: excess } : { kind: 'indices', indices: candidates.slice(0, excess) },
};

const LIFO: EvictionPolicy<any> = {
  kind: 'lifo',
  description: 'lifo',
  select: (_view, candidates, excess) =>
    candidates === undefined
      ? { kind: 'back', count: excess }
      : { kind: 'indices', indices: candidates.slice(candidates.length - excess) },
};

/** Turns ascending indices into the cheapest equivalent decision (a front or back run when it is one). */
function toDecision(indices: number[], size: number): EvictionDecision {
  const n = indices.length;
  if (n === 0) return { kind: 'none' };
  if (indices[n - 1] === n - 1) return { kind: 'front', count: n };
  if (indices[0] === size - n) return { kind: 'back', count: n };
  return { kind: 'indices', indices };
}

function priority<TItem>(priorityOf: (item: TItem, index: number) => number): EvictionPolicy<TItem> {
  return {
    kind: 'priority',
    description: 'priority',
    select(view, candidates, excess) {
      const items = view; // view.at reads the storage directly (no array view)
      const count = candidates?.length ?? view.size;
      const indexAt = (k: number): number => (candidates === undefined ? k : (candidates[k] as number));
      if (excess === 1) {
        // One eviction per append is the common case: a linear scan, ties keep the first (oldest) minimum.
        let best = indexAt(0);
        let bestPriority = priorityOf(items.at(best) as TItem, best);
        for (let k = 1; k < count; k++) {
          const i = indexAt(k);
          const p = priorityOf(items.at(i) as TItem, i);
          if (p < bestPriority) {
            best = i;
            bestPriority = p;
          }
        }
        return toDecision([best], view.size);
      }
      const ranked: { i: number; p: number }[] = [];
      for (let k = 0; k < count; k++) {
        const i = indexAt(k);
        ranked.push({ i, p: priorityOf(items.at(i) as TItem, i) });
      }
      ranked.sort((a, b) => a.p - b.p || a.i - b.i);
      const chosen = ranked.slice(0, excess).map((r) => r.i);
      chosen.sort((a, b) => a - b);
      return toDecision(chosen, view.size);
    },
  };
}

function sampling<TItem>(options: { readonly seed: number }): EvictionPolicy<TItem> {
  const { seed } = options;
  const description = `sampling(seed ${String(seed)})`;
  if (!Number.isSafeInteger(seed)) throw new InvalidWindowError(description, 'the seed must be an integer.');
  return {
    kind: 'sampling',
    description,
    select(view, candidates, excess, ctx) {
      if (candidates !== undefined) {
        throw new InvalidWindowError(description, 'sampling needs the whole slice; use it with SliceWindow.count.');
      }
      const size = view.size;
      const k = size - excess;
      // Algorithm R: items 0..k-1 form the reservoir, items k..size-1 arrive in order. Item p is
      // the n-th item ever appended, n = appended - (size - 1 - p) (always > k because appended >= size).
      // It evicts the reservoir's j-th item, j = rand(seed, n) in [0, n), when j < k, else it is dropped.
      // `reservoir` is the kept order after each step, so an extend evicts exactly what the same
      // items appended one by one would have evicted.
      const evicted: number[] = [];
      const reservoir = excess === 1 ? undefined : Array.from({ length: k }, (_, i) => i);
      for (let p = k; p < size; p++) {
        const n = ctx.appended - (size - 1 - p);
        const j = seededIndex(seed, n, Math.max(n, k + 1));
        if (j >= k) {
          evicted.push(p);
        } else if (reservoir === undefined) {
          evicted.push(j);
        } else {
          evicted.push(reservoir[j] as number);
          reservoir.splice(j, 1);
          reservoir.push(p);
        }
      }
      evicted.sort((a, b) => a - b);
      return toDecision(evicted, size);
    },
  };
}

/**
 * The eviction policies a bounded window can use.
 *
 * - `fifo()` (default): evicts the oldest items. A count window answers with a `front`
 *   decision in O(1), so appends stay O(1) amortized.
 * - `lifo()`: evicts the newest items (a full window keeps its first items and refuses newcomers). O(1).
 * - `priority(fn)`: evicts the items with the lowest `fn(item, index)`; ties evict the oldest
 *   first. O(n) per eviction of one item, O(n log n) when several are evicted at once.
 *   Annotate the parameter (`(c: Call) => ...`) when the policy sits inside a window inside
 *   `defineSlice`: TypeScript does not infer it through two generic calls.
 * - `sampling({ seed })`: reservoir sampling (Vitter's Algorithm R, "Random sampling with a
 *   reservoir", ACM TOMS 1985): after `N` appends the window holds a uniform random sample
 *   of `maxItems` of them. The random choice for the n-th appended item is a pure function
 *   of `(seed, n)` (n is `WindowContext.appended`), so replays and rollbacks evict the same items.
 *   Count windows only. O(1) per appended item (O(maxItems) per item when one reducer adds several)
 *   plus the storage's O(n) removal by index.
 *
 * @throws {@link InvalidWindowError} from `sampling` when `seed` is not an integer, and when a
 * sampling policy is used by a predicate window.
 * @example
 * ```ts
 * const Calls = defineSlice('calls', {
 *   policy: 'log',
 *   window: SliceWindow.count(1000, { eviction: EvictionPolicy.priority((c: Call) => (c.failed ? 1 : 0)) }),
 * });
 * // A 1001st call evicts the oldest call that did not fail (or the oldest call when all failed).
 * ```
 */
export const EvictionPolicy = {
  /** Evicts the oldest items (the default). O(1) per decision in a count window. */
  fifo: <TItem = unknown>(): EvictionPolicy<TItem> => FIFO,
  /**
   * The seed's `EvictionPolicy.OLDEST_FIRST`: the same policy as {@link EvictionPolicy.fifo}
   * (evicts the oldest items), under the name the design documents use. The one policy a time
   * window takes.
   */
  oldestFirst: <TItem = unknown>(): EvictionPolicy<TItem> => FIFO,
  /** Evicts the newest items: a full window keeps its first items and refuses newcomers. O(1). */
  lifo: <TItem = unknown>(): EvictionPolicy<TItem> => LIFO,
  /** Evicts the items with the lowest `priorityOf(item, index)`, the oldest first among ties. O(n) for one eviction, O(n log n) for several at once. */
  priority,
  /**
   * Reservoir sampling seeded by `seed` (an integer): a uniform random sample, replayable. Count windows only.
   * @throws {@link InvalidWindowError} when `seed` is not an integer.
   */
  sampling,
} as const;
