import type { SliceWindowPolicy } from '../slices/window-contract';
import { EvictionPolicy } from './eviction-policy';
import { checkCount, InvalidWindowError } from './invalid-window-error';
import { withEviction } from './with-eviction';
import { NONE } from './index-decisions';
import { SAMPLES, TIMED, type BoundedWindowOptions } from './window-plan';
import { predicate } from './predicate-window';
import { composite } from './composite-window';

export type { BoundedWindowOptions } from './window-plan';

function count<TItem = unknown>(maxItems: number, options: BoundedWindowOptions<TItem> = {}): SliceWindowPolicy<TItem> {
  const eviction = options.eviction ?? EvictionPolicy.fifo<TItem>();
  const description = `count(${String(maxItems)}, ${eviction.description})`;
  checkCount(description, 'maxItems', maxItems);
  return {
    description,
    ...(eviction.kind === 'sampling' ? { [SAMPLES]: true } : {}),
    evict(view, ctx) {
      const excess = view.size - maxItems;
      return excess > 0 ? eviction.select(view, undefined, excess, ctx) : NONE;
    },
    withEviction: (next) => count(maxItems, { eviction: next }),
  };
}

/**
 * Options of {@link SliceWindow.time}: the longest age of an item, with its unit in the name
 * (exactly one of `maxAgeSeconds` and `maxAgeMs`), and optionally the eviction policy.
 */
export type TimeWindowOptions<TItem = unknown> = (
  | { readonly maxAgeSeconds: number; readonly maxAgeMs?: never }
  | { readonly maxAgeMs: number; readonly maxAgeSeconds?: never }
) & {
  /**
   * Which expired items go first. A time window always evicts its expired items from the oldest
   * on, so the only policy it takes is {@link EvictionPolicy.oldestFirst} (`fifo`), the default;
   * it is accepted so that a declaration can say so.
   */
  readonly eviction?: EvictionPolicy<TItem>;
};

function time<TItem = unknown>(options: TimeWindowOptions<TItem>): SliceWindowPolicy<TItem> {
  const given = options as unknown;
  if (given === null || typeof given !== 'object') {
    throw new InvalidWindowError(
      `time(${String(given)})`,
      `the age needs its unit: SliceWindow.time({ maxAgeSeconds: ${String(given)} }) or SliceWindow.time({ maxAgeMs: ${String(given)} }).`,
    );
  }
  const { maxAgeSeconds, maxAgeMs: ms } = options;
  if ((maxAgeSeconds === undefined) === (ms === undefined)) {
    throw new InvalidWindowError('time(...)', 'give exactly one of maxAgeSeconds and maxAgeMs.');
  }
  const maxAgeMs = ms ?? (maxAgeSeconds as number) * 1000;
  const description = `time(${String(maxAgeMs)}ms)`;
  if (typeof maxAgeMs !== 'number' || !(maxAgeMs >= 0) || !Number.isFinite(maxAgeMs)) {
    const field = ms === undefined ? 'maxAgeSeconds' : 'maxAgeMs';
    throw new InvalidWindowError(description, `${field} must be a finite number >= 0, got ${String(ms ?? maxAgeSeconds)}.`);
  }
  if (options.eviction !== undefined) timeEviction(description, options.eviction);
  const window: SliceWindowPolicy<TItem> & { readonly [TIMED]: true } = {
    description,
    [TIMED]: true,
    evict(view, ctx) {
      const oldestAllowed = ctx.now - maxAgeMs;
      const size = view.size;
      let expired = 0;
      while (expired < size && ctx.timeAt(expired) < oldestAllowed) expired++;
      return expired > 0 ? { kind: 'front', count: expired } : NONE;
    },
    withEviction(eviction) {
      timeEviction(description, eviction);
      return window;
    },
  };
  return window;
}

/** A time window takes the oldest-first policy only (what it does anyway). */
function timeEviction<TItem>(description: string, eviction: EvictionPolicy<TItem>): void {
  if (eviction.kind !== 'fifo') {
    throw new InvalidWindowError(
      description,
      `it evicts by its own rule (expired items, oldest first), so the eviction policy "${eviction.description}" does not apply (only EvictionPolicy.oldestFirst() does). Use SliceWindow.count or SliceWindow.predicate for a bound that an eviction policy chooses from.`,
    );
  }
}

/**
 * Windows that bound a slice. Pass one to `defineSlice({ window, eviction? })` or at run time to
 * `session.slice(def).configure({ window?, eviction? })`. Default: no window (unbounded).
 *
 * @remarks The session asks the window after each reducer that changed the slice, inside the
 * same commit: evicted items disappear in the same version that added the newcomers, are
 * reported on `session.evicted$` after the commit, and nothing is evicted when a later
 * reducer of the event throws. A window is evaluated only when its slice changes.
 * Count and time windows **bound** the slice; a predicate window **protects** its matches
 * (docs/ARCHITECTURE.md, "Windows and eviction"; the seed's "keep errors, evict successes" and "always
 * keep failures, plus recent 900").
 *
 * - `count(maxItems, { eviction })`: at most `maxItems` items. When there are more, the
 *   eviction policy (default FIFO: the oldest) picks the excess. FIFO and LIFO decide in O(1).
 * - `time({ maxAgeSeconds } | { maxAgeMs }, eviction?)`: the unit is in the option's name (a bare
 *   number is refused: the seed's `time(max_age_seconds=3600)` is `time({ maxAgeSeconds: 3600 })`).
 *   Evicts item `i` when `ctx.now - ctx.timeAt(i) > maxAgeMs`, where
 *   `timeAt(i)` is the session-scheduler time (ms) of the envelope that added the item and
 *   `now` that of the event being reduced. Items are scanned from the front and the scan
 *   stops at the first young item, so a decision costs O(evicted). Appends keep entry times
 *   ascending; a `replace` that puts a new item before older kept ones (e.g. `upsertBy` in
 *   the middle) leaves those older items until every item in front of them expired.
 * - `predicate(keep, maxItems, { eviction })`: protects the items for which `keep(item, index)`
 *   is true, at most `maxItems` of them (when more match, the eviction policy, default FIFO,
 *   picks the excess among them: FIFO protects the newest matches, LIFO the oldest, priority the
 *   highest). Alone, it keeps only what it protects: "keep errors, evict successes" is
 *   `predicate(isError, 100)`. The window remembers which items matched (with the slice, in the
 *   storage) and tests only the items that are new or were changed by a `replace` since: O(k + m)
 *   per change for k such items and m matching ones (at most `maxItems` plus the newcomers),
 *   instead of testing all n items; after a `clear`, a restore, a reconfiguration or with a
 *   storage that keeps no memo it tests every item (O(n)). `keep` must be pure. A `keep` declared
 *   with one parameter (`(c) => ...`) is taken not to read the index: its result for an item is
 *   reused after evictions in front of it moved the item; declare the index parameter
 *   (`(c, i) => ...`) to have items tested again at their new index then.
 * - `composite(...windows)`: keeps what its bounding windows (`count`, `time`, and any window
 *   of your own) keep together (an item goes when any of them evicts it), plus what any of its
 *   predicate windows protects. Each window judges the whole content on its own, so an item
 *   both recent and matching counts toward each: `composite(predicate(failed, 100), count(900))`
 *   keeps the newest 900 items plus the newest 100 failures wherever they are (at most 1,000
 *   items; fewer when some of those failures are among the newest 900). Without a bounding
 *   window it keeps only what its predicate windows protect; without a predicate window, only
 *   what every bounding window keeps. Composites nest flat (`composite(a, composite(b, c))` is
 *   `composite(a, b, c)`). A sampling count window cannot sit beside a predicate window (its
 *   reservoir is the whole slice). Cost per change: the windows' own, plus O(p) to merge the p
 *   protected items; when protected items sit in front of the evicted ones, the storage removes
 *   by index (O(items in the window), a copy), where a plain count window drops from the front in O(1).
 * - `withEviction(window, eviction)`: the same window with another eviction policy (what
 *   `defineSlice({ eviction })` and `configure({ eviction })` use). On a composite, every
 *   bounded window inside (count and predicate) gets the policy.
 *
 * @throws {@link InvalidWindowError} when `maxItems` is not an integer >= 0, `maxAgeMs` is
 * negative or not finite, a predicate window is given a sampling policy, a composite holds a
 * predicate window and a sampling count window, or `withEviction` is given a window without an
 * eviction choice.
 * @example
 * ```ts
 * // Always keep failures (up to 100), plus the recent 900 calls (the seed's call log).
 * const Calls = defineSlice('calls', {
 *   policy: 'log',
 *   window: SliceWindow.composite(SliceWindow.predicate((c: Call) => c.failed, 100), SliceWindow.count(900)),
 *   reducers: ({ on }) => [on(CallFinished, (_v, e) => append(e.payload))],
 * });
 * // After 5,000 calls, every 50th failed: the newest 900 calls and the 82 older failures remain.
 * const Errors = defineSlice('errors', { policy: 'log', window: SliceWindow.predicate(isError, 100) });
 * // Keep errors, evict successes: at most the 100 newest errors.
 * const Recent = defineSlice('recent', { policy: 'log', window: SliceWindow.composite(SliceWindow.count(10_000), SliceWindow.time({ maxAgeSeconds: 7200 })) });
 * // At most 10,000 items, none older than 2 hours.
 * ```
 */
export const SliceWindow = {
  /**
   * At most `maxItems` items (an integer >= 0); the eviction policy (default FIFO) picks the excess.
   * @throws {@link InvalidWindowError} when `maxItems` is not an integer >= 0.
   */
  count,
  /**
   * Evicts the items added more than `maxAgeSeconds` s (or `maxAgeMs` ms) of session-scheduler
   * time before the event being reduced, oldest first.
   * @throws {@link InvalidWindowError} when the age is a bare number (its unit must be named),
   * both or neither unit is given, the age is negative or not finite, or `eviction` is not
   * oldest-first.
   * @example
   * ```ts
   * SliceWindow.time({ maxAgeSeconds: 3600, eviction: EvictionPolicy.oldestFirst() }).description; // 'time(3600000ms)'
   * SliceWindow.time(3600 as never); // throws InvalidWindowError: ... SliceWindow.time({ maxAgeSeconds: 3600 }) or SliceWindow.time({ maxAgeMs: 3600 })
   * ```
   */
  time,
  /**
   * Protects the items for which `keep(item, index)` is true, at most `maxItems` of them; alone, keeps only those.
   * @throws {@link InvalidWindowError} when `maxItems` is not an integer >= 0 or the policy is sampling.
   */
  predicate,
  /**
   * Keeps what its bounding windows keep together, plus what its predicate windows protect.
   * @throws {@link InvalidWindowError} when it holds a predicate window and a sampling count window.
   */
  composite,
  /**
   * The same window with another eviction policy (every bounded window inside a composite gets it;
   * a time window takes only oldest-first, which it keeps).
   * @throws {@link InvalidWindowError} for a window without an eviction choice, or a time window given another policy.
   */
  withEviction,
} as const;
