import type { SliceView } from '../slices/slice-view';
import type { EvictionDecision, SliceWindowPolicy, WindowContext, WindowMemo } from '../slices/window-contract';
import { EvictionPolicy } from './eviction-policy';
import { checkCount, InvalidWindowError } from './invalid-window-error';
import { quote } from '../internal/quote';
import { withEviction } from './with-eviction';

/** Options of the bounded windows (`count`, `predicate`). */
export interface BoundedWindowOptions<TItem> {
  /**
   * Which items go when the window is over its bound: for `count`, which items are evicted; for
   * `predicate`, which matching items lose its protection (so FIFO protects the newest matches).
   * Default `EvictionPolicy.fifo()` (the oldest).
   */
  readonly eviction?: EvictionPolicy<TItem>;
}

const NONE: EvictionDecision = { kind: 'none' };

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

/** Marks a time window: in a composite beside windows that choose, it keeps its own rule. */
const TIMED = Symbol('rxslice.window.timed');

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
 * A window's verdict on the current content, planned from what it remembered at its last
 * evaluation. A bounding window (`count`, `time`, any other) answers `evicted`: the items it
 * lets go. A predicate window answers `protected`: the items it keeps whatever the bounds
 * say (ascending indices). `after` gives the state to remember once the final decision (its
 * own, or a composite's) is applied.
 */
interface Planned {
  readonly evicted?: EvictionDecision;
  readonly protected?: readonly number[];
  after(applied: EvictionDecision, size: number): unknown;
}
const PLAN = Symbol('rxslice.window.plan');
/** Marks a composite and holds its windows, so that composites nest flat. */
const PARTS = Symbol('rxslice.window.parts');
/** Marks a predicate window (it protects its matches rather than bounding the slice). */
const PROTECTS = Symbol('rxslice.window.protects');
/** Marks a count window that samples (it cannot share the slice with a predicate window). */
const SAMPLES = Symbol('rxslice.window.samples');
type Plannable<TItem> = SliceWindowPolicy<TItem> & {
  [PLAN](view: SliceView<TItem>, ctx: WindowContext, memo: WindowMemo | undefined): Planned;
};
const isPlannable = <TItem>(w: SliceWindowPolicy<TItem>): w is Plannable<TItem> => PLAN in w;

/** A plannable window's `evict`: plan from the slice's memo, remember the state after the decision. */
function evictPlanned<TItem>(window: Plannable<TItem>, view: SliceView<TItem>, ctx: WindowContext): EvictionDecision {
  const planned = window[PLAN](view, ctx, ctx.memo);
  const decision = planned.evicted ?? complement(planned.protected ?? [], view.size);
  if (ctx.remember !== undefined) ctx.remember(planned.after(decision, view.size));
  return decision;
}

/** Turns ascending indices into the cheapest equivalent decision (a front or back run when it is one). */
function toDecision(indices: readonly number[], size: number): EvictionDecision {
  const n = indices.length;
  if (n === 0) return NONE;
  if (indices[n - 1] === n - 1) return { kind: 'front', count: n };
  if (indices[0] === size - n) return { kind: 'back', count: n };
  return { kind: 'indices', indices };
}

/**
 * Every index of `[0, size)` not in `kept` (ascending, distinct, within range). O(1) when
 * nothing or one run is missing, else O(e log n) for e missing indices: `kept[j] - j` never
 * decreases, so each jump (a gap) is found by binary search.
 */
function complement(kept: readonly number[], size: number): EvictionDecision {
  const n = kept.length;
  const missing = size - n;
  if (missing <= 0) return NONE;
  if (n === 0) return { kind: 'front', count: size };
  const first = kept[0] as number;
  const last = kept[n - 1] as number;
  if (last - first + 1 === n) {
    if (first === 0) return { kind: 'back', count: size - 1 - last };
    if (last === size - 1) return { kind: 'front', count: first };
  }
  const out: number[] = [];
  let gap = 0; // kept[j] - j so far: how many indices are missing before kept[j]
  let lo = 0;
  while (out.length < missing) {
    // The first j >= lo with kept[j] - j > gap, or n when there is none.
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((kept[mid] as number) - mid > gap) hi = mid;
      else lo = mid + 1;
    }
    const until = lo < n ? (kept[lo] as number) : size;
    for (let i = lo + gap; i < until; i++) out.push(i);
    if (lo >= n) break;
    gap = (kept[lo] as number) - lo;
    lo++;
  }
  return toDecision(out, size);
}

/**
 * The items of `decision` that are not in `kept` (ascending indices): O(evicted + protected
 * among them) for front and back runs, O(evicted + protected) for index lists.
 */
function spare(decision: EvictionDecision, kept: readonly number[], size: number): EvictionDecision {
  if (decision.kind === 'none' || kept.length === 0) return decision;
  let from = 0;
  let to = 0;
  let list: readonly number[] | undefined;
  if (decision.kind === 'front') to = Math.min(Math.max(decision.count, 0), size);
  else if (decision.kind === 'back') {
    from = size - Math.min(Math.max(decision.count, 0), size);
    to = size;
  } else list = decision.indices;
  let k = lowerBound(kept, list === undefined ? from : 0);
  if (list === undefined && (k === kept.length || (kept[k] as number) >= to)) return decision; // nothing protected in the run
  const out: number[] = [];
  const take = (i: number): void => {
    while (k < kept.length && (kept[k] as number) < i) k++;
    if (k < kept.length && kept[k] === i) return;
    out.push(i);
  };
  if (list === undefined) for (let i = from; i < to; i++) take(i);
  else for (const i of list) take(i);
  return toDecision(out, size);
}

/** What a predicate window remembers: the indices of its matching items in a content of `size` items. */
interface PredicateState {
  readonly owner: object;
  readonly size: number;
  /** Ascending; never mutated once remembered (a new array on each change). */
  readonly matching: readonly number[];
}

/** The first position in ascending `list` whose value is >= `value`. */
function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

/** The indices of ascending `list` that `decision` does not drop (a content of `size` items). */
function without(list: readonly number[], decision: EvictionDecision, size: number): readonly number[] {
  switch (decision.kind) {
    case 'none':
      return list;
    case 'front':
      return list.slice(lowerBound(list, decision.count));
    case 'back':
      return list.slice(0, lowerBound(list, size - decision.count));
    case 'indices': {
      const dropped = decision.indices;
      const out: number[] = [];
      let d = 0;
      for (const i of list) {
        while (d < dropped.length && (dropped[d] as number) < i) d++;
        if (d < dropped.length && dropped[d] === i) continue;
        out.push(i);
      }
      return out;
    }
  }
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

/** Unites the decisions of a composite's windows (each item evicted by any of them goes). */
function unite(decisions: readonly EvictionDecision[], size: number): EvictionDecision {
  if (decisions.length === 0) return NONE;
  if (decisions.length === 1) return decisions[0] as EvictionDecision;
  if (decisions.every((d) => d.kind === 'front')) {
    return { kind: 'front', count: Math.max(...decisions.map((d) => (d.kind === 'front' ? d.count : 0))) };
  }
  if (decisions.every((d) => d.kind === 'back')) {
    return { kind: 'back', count: Math.max(...decisions.map((d) => (d.kind === 'back' ? d.count : 0))) };
  }
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
}

/** Merges ascending index lists into one ascending list without duplicates, in O(total length). */
function union(lists: readonly (readonly number[])[]): readonly number[] {
  let merged = lists[0] as readonly number[];
  for (let k = 1; k < lists.length; k++) {
    const other = lists[k] as readonly number[];
    if (other.length === 0) continue;
    if (merged.length === 0) {
      merged = other;
      continue;
    }
    const out = new Array<number>(merged.length + other.length);
    let i = 0;
    let j = 0;
    let w = 0;
    while (i < merged.length || j < other.length) {
      const x = i < merged.length ? (merged[i] as number) : Number.POSITIVE_INFINITY;
      const y = j < other.length ? (other[j] as number) : Number.POSITIVE_INFINITY;
      if (x <= y) {
        out[w++] = x;
        i++;
        if (x === y) j++;
      } else {
        out[w++] = y;
        j++;
      }
    }
    out.length = w;
    merged = out;
  }
  return merged;
}

/** What a composite remembers: the state of each of its plannable windows (`undefined` for the others). */
interface CompositeState {
  readonly owner: object;
  readonly parts: readonly unknown[];
}

type Composite<TItem> = Plannable<TItem> & { readonly [PARTS]: readonly SliceWindowPolicy<TItem>[] };

function composite<TItem = unknown>(...windows: readonly SliceWindowPolicy<TItem>[]): SliceWindowPolicy<TItem> {
  const description = `composite(${windows.map((w) => w.description).join(', ')})`;
  // Composites nest flat: composite(a, composite(b, c)) is composite(a, b, c).
  const flat = windows.flatMap((w) => (PARTS in w ? (w as Composite<TItem>)[PARTS] : [w]));
  const protecting = flat.some((w) => PROTECTS in w);
  if (protecting && flat.some((w) => SAMPLES in w)) {
    throw new InvalidWindowError(
      description,
      'a sampling count window draws its sample from the whole slice, so it cannot share the slice with a predicate window. Use a FIFO, LIFO or priority count window beside the predicate.',
    );
  }
  const window: Composite<TItem> = {
    description,
    [PARTS]: flat,
    evict: (view, ctx) => evictPlanned(window, view, ctx),
    // The policy goes to every window inside that takes one; a composite of none has no choice to make.
    ...(windows.some((w) => w.withEviction !== undefined)
      ? {
          withEviction: (next: EvictionPolicy<TItem>) => {
            // Time windows keep their rule beside windows that choose; alone, they check the policy.
            const choosers = windows.some((w) => w.withEviction !== undefined && !(TIMED in w));
            return composite(...windows.map((w) => (w.withEviction === undefined || (choosers && TIMED in w) ? w : w.withEviction(next))));
          },
        }
      : {}),
    [PLAN](view, ctx, memo) {
      const state = memo?.state as CompositeState | undefined;
      const parts = state !== undefined && state.owner === window ? state.parts : undefined;
      // The windows inside neither see nor set the slice's memo: each gets its own part of it.
      const inner: WindowContext = { now: ctx.now, seq: ctx.seq, appended: ctx.appended, timeAt: (i) => ctx.timeAt(i) };
      const planned: (Planned | undefined)[] = [];
      const evicted: EvictionDecision[] = [];
      const kept: (readonly number[])[] = [];
      let bounding = false;
      for (let k = 0; k < flat.length; k++) {
        const w = flat[k] as SliceWindowPolicy<TItem>;
        let p: Planned | undefined;
        if (isPlannable(w)) {
          const part = parts?.[k];
          p = w[PLAN](view, inner, part === undefined ? undefined : { state: part, stableBelow: (memo as WindowMemo).stableBelow, changed: (memo as WindowMemo).changed });
        }
        planned.push(p);
        if (p?.protected !== undefined) {
          kept.push(p.protected);
          continue;
        }
        bounding = true;
        const d = p?.evicted ?? w.evict(view, inner);
        if (d.kind !== 'none') evicted.push(d);
      }
      const after = (applied: EvictionDecision, size: number): CompositeState => ({ owner: window, parts: planned.map((p) => p?.after(applied, size)) });
      // Kept: what the bounding windows keep together, plus what any predicate window protects.
      if (kept.length === 0) return { evicted: unite(evicted, view.size), after };
      if (!bounding) return { protected: union(kept), after };
      return { evicted: spare(unite(evicted, view.size), union(kept), view.size), after };
    },
  };
  return window;
}

/**
 * `window` with `eviction` as its eviction policy (see {@link SliceWindowPolicy.withEviction}):
 * a bounded window rebuilt with the new policy, or a composite whose bounded windows are.
 * @throws {@link InvalidWindowError} when the window has no eviction choice to make (`time`, or
 * a composite of such windows), or the policy does not suit it (sampling in a predicate window).
 * @example
 * ```ts
 * withEviction(SliceWindow.count(100), EvictionPolicy.lifo()).description; // 'count(100, lifo)'
 * ```
 */
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
