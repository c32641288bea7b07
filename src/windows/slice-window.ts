import type { SliceView } from '../slices/slice-view';
import type { EvictionDecision, SliceWindowPolicy, WindowContext } from '../slices/window-contract';
import { EvictionPolicy } from './eviction-policy';
import { checkCount, InvalidWindowError } from './invalid-window-error';

/** Options of the bounded windows (`count`, `predicate`). */
export interface BoundedWindowOptions<TItem> {
  /** Which items go when the window is over its bound. Default `EvictionPolicy.fifo()` (the oldest). */
  readonly eviction?: EvictionPolicy<TItem>;
}

const NONE: EvictionDecision = { kind: 'none' };

function count<TItem = unknown>(maxItems: number, options: BoundedWindowOptions<TItem> = {}): SliceWindowPolicy<TItem> {
  const eviction = options.eviction ?? EvictionPolicy.fifo<TItem>();
  const description = `count(${String(maxItems)}, ${eviction.description})`;
  checkCount(description, 'maxItems', maxItems);
  return {
    description,
    evict(view, ctx) {
      const excess = view.size - maxItems;
      return excess > 0 ? eviction.select(view, undefined, excess, ctx) : NONE;
    },
  };
}

function time<TItem = unknown>(maxAgeMs: number): SliceWindowPolicy<TItem> {
  const description = `time(${String(maxAgeMs)}ms)`;
  if (!(maxAgeMs >= 0) || !Number.isFinite(maxAgeMs)) {
    throw new InvalidWindowError(description, `maxAgeMs must be a finite number >= 0, got ${String(maxAgeMs)}.`);
  }
  return {
    description,
    evict(view, ctx) {
      const oldestAllowed = ctx.now - maxAgeMs;
      const size = view.size;
      let expired = 0;
      while (expired < size && ctx.timeAt(expired) < oldestAllowed) expired++;
      return expired > 0 ? { kind: 'front', count: expired } : NONE;
    },
  };
}

function predicate<TItem = unknown>(
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
  return {
    description,
    evict(view, ctx) {
      // view.at reads the storage directly (no array view to go through).
      const matching: number[] = [];
      for (let i = 0, n = view.size; i < n; i++) if (keep(view.at(i) as TItem, i)) matching.push(i);
      const excess = matching.length - maxItems;
      return excess > 0 ? eviction.select(view, matching, excess, ctx) : NONE;
    },
  };
}

function composite<TItem = unknown>(...windows: readonly SliceWindowPolicy<TItem>[]): SliceWindowPolicy<TItem> {
  const description = `composite(${windows.map((w) => w.description).join(', ')})`;
  return {
    description,
    evict(view: SliceView<TItem>, ctx: WindowContext): EvictionDecision {
      const decisions: EvictionDecision[] = [];
      for (const w of windows) {
        const d = w.evict(view, ctx);
        if (d.kind !== 'none') decisions.push(d);
      }
      if (decisions.length === 0) return NONE;
      if (decisions.length === 1) return decisions[0] as EvictionDecision;
      if (decisions.every((d) => d.kind === 'front')) {
        return { kind: 'front', count: Math.max(...decisions.map((d) => (d.kind === 'front' ? d.count : 0))) };
      }
      if (decisions.every((d) => d.kind === 'back')) {
        return { kind: 'back', count: Math.max(...decisions.map((d) => (d.kind === 'back' ? d.count : 0))) };
      }
      const size = view.size;
      const evicted = new Uint8Array(size);
      for (const d of decisions) {
        if (d.kind === 'front') evicted.fill(1, 0, Math.min(d.count, size));
        else if (d.kind === 'back') evicted.fill(1, Math.max(0, size - d.count), size);
        else if (d.kind === 'indices') for (const i of d.indices) if (i >= 0 && i < size) evicted[i] = 1;
      }
      const indices: number[] = [];
      for (let i = 0; i < size; i++) if (evicted[i] === 1) indices.push(i);
      let prefix = 0;
      while (prefix < indices.length && indices[prefix] === prefix) prefix++;
      return prefix === indices.length ? { kind: 'front', count: prefix } : { kind: 'indices', indices };
    },
  };
}

/**
 * Windows that bound a slice. Pass one to `defineSlice({ window })` or at run time to
 * `session.slice(def).configure({ window })`. Default: no window (unbounded).
 *
 * @remarks The session asks the window after each reducer that changed the slice, inside the
 * same commit: evicted items disappear in the same version that added the newcomers, are
 * reported on `session.evicted$` after the commit, and nothing is evicted when a later
 * reducer of the event throws. A window is evaluated only when its slice changes.
 *
 * - `count(maxItems, { eviction })`: at most `maxItems` items. When there are more, the
 *   eviction policy (default FIFO: the oldest) picks the excess. FIFO and LIFO decide in O(1).
 * - `time(maxAgeMs)`: evicts item `i` when `ctx.now - ctx.timeAt(i) > maxAgeMs`, where
 *   `timeAt(i)` is the session-scheduler time (ms) of the envelope that added the item and
 *   `now` that of the event being reduced. Items are scanned from the front and the scan
 *   stops at the first young item, so a decision costs O(evicted). Appends keep entry times
 *   ascending; a `replace` that puts a new item before older kept ones (e.g. `upsertBy` in
 *   the middle) leaves those older items until every item in front of them expired.
 * - `predicate(keep, maxItems, { eviction })`: a count window over the items for which
 *   `keep(item, index)` is true: of those, at most `maxItems` stay (the eviction policy,
 *   default FIFO, picks the excess among them only). Items for which `keep` is false are not
 *   this window's concern and are never evicted by it. O(n) per change (it tests every item).
 * - `composite(...windows)`: an item survives only if every window keeps it (the evicted sets
 *   are united), so every window's bound holds. "Every failed call (up to 100) plus the last 900
 *   others" is `composite(predicate(isFailed, 100), predicate((c) => !isFailed(c), 900))`.
 *
 * @throws {@link InvalidWindowError} when `maxItems` is not an integer >= 0, `maxAgeMs` is
 * negative or not finite, or a predicate window is given a sampling policy.
 * @example
 * ```ts
 * const Calls = defineSlice('calls', {
 *   policy: 'log',
 *   window: SliceWindow.composite(
 *     SliceWindow.predicate((c: Call) => c.failed, 100),
 *     SliceWindow.predicate((c: Call) => !c.failed, 900),
 *   ),
 *   reducers: ({ on }) => [on(CallFinished, (_v, e) => append(e.payload))],
 * });
 * // After 5,000 calls of which 300 failed: the 100 newest failed and the 900 newest others remain.
 * ```
 */
export const SliceWindow = { count, time, predicate, composite } as const;
