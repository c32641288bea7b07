import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { CoreStore } from '../session/session-types';
import { ATTACH, NOT_A_SLICE } from '../session/internals';
import { computed, type ComputedHandle } from './computed';
import { checkComputedDeclaration, isComputedDef } from './computed-declaration';
import { ComputedReadOnlyError, InvalidComputedError } from './computed-errors';
import type { SliceDef } from '../slices/reducer';

/** What a computed slice may derive from: slices and other computed slices. */
export type ComputedSource = SliceDef<string, any> | ComputedDef<string, any>;

/** The value a source contributes to `project`: a slice's items, or a computed slice's value. */
export type SourceValue<TSource> =
  TSource extends ComputedDef<string, infer TValue>
    ? TValue
    : TSource extends SliceDef<string, infer TItem>
      ? readonly TItem[]
      : never;

/** The arguments of `project`, one per source, in order. */
export type SourceValues<TSources extends readonly ComputedSource[]> = { -readonly [K in keyof TSources]: SourceValue<TSources[K]> };

/** Options of {@link defineComputed}. */
export interface ComputedOptions<TValue> {
  /**
   * When a recomputed value counts as unchanged: then the previous value (the same reference)
   * is kept, nothing is emitted and dependents are not recomputed. Default `Object.is`
   * (reference equality): return the same object from `project` to mean "unchanged".
   */
  readonly equals?: (previous: TValue, next: TValue) => boolean;
}

/** Options of {@link defineComputed.incremental}: how to fold a log's items into a value. */
export interface IncrementalOptions<TItem, TValue> extends ComputedOptions<TValue> {
  /** The value of an empty slice. Called again for each recomputation from scratch. */
  readonly init: () => TValue;
  /**
   * The value after `appended` (one or more items, in slice order) were appended to the slice
   * whose value is `value`. Pure: return a new value and leave `value` as it is (it is frozen
   * when the session freezes items; share its unchanged parts rather than copying them).
   */
  readonly fold: (value: TValue, appended: readonly TItem[]) => TValue;
}

/** What an incremental computed slice folds: the `incremental` field of its declaration (from {@link IncrementalOptions}). */
export interface IncrementalFold<TValue> {
  /** The value of an empty slice ({@link IncrementalOptions.init}). */
  readonly init: () => TValue;
  /** The value after `appended` items were appended to the slice whose value is `value` ({@link IncrementalOptions.fold}). */
  readonly fold: (value: TValue, appended: readonly any[]) => TValue;
}

/** A computed slice declaration made by {@link defineComputed} (inert, reusable across sessions). */
export interface ComputedDef<TName extends string = string, TValue = unknown> {
  readonly kind: 'computed';
  readonly name: TName;
  readonly sources: readonly ComputedSource[];
  /**
   * Computes the value from the sources' values, one argument per source in `sources` order
   * (a slice's items, a computed slice's value; see {@link SourceValues}). Pure; must not
   * dispatch. Called by the session when a source's version changed; what it throws is
   * reported on `session.errors$` as a {@link ComputedError} and the previous value is kept.
   */
  readonly project: (...values: any[]) => TValue;
  /** When a new value counts as unchanged ({@link ComputedOptions.equals}; `Object.is` when not given). */
  readonly equals: (previous: TValue, next: TValue) => boolean;
  /**
   * Set by {@link defineComputed.incremental}: the value is folded from the items appended since
   * the last value (`project` is the from-scratch fold over every item).
   */
  readonly incremental?: IncrementalFold<TValue> | undefined;
  /** Phantom field carrying the value type: `typeof Progress.Value`. Always `undefined` at run time. */
  readonly Value: TValue;
  /** @internal Opens the computed slice in a session: `session.computed(def)`. */
  readonly [ATTACH]: (session: CoreStore) => ComputedHandle<TValue>;
}

/** The value type of a computed slice definition: `InferComputed<typeof Progress>`. */
export type InferComputed<TDef> = TDef extends ComputedDef<string, infer TValue> ? TValue : never;

/**
 * Declares a computed slice: a read-only value derived from slices and other computed
 * slices by a pure `project` function. The declaration is inert; read it in a session with
 * `computed(session, def)` (or `session.computed(def)`).
 *
 * @remarks In a session a computed slice is lazy (`project` runs first when it is read or
 * subscribed), memoized on its sources' versions (reading twice with no source change calls
 * `project` once) and glitch-free: after one committed event or one `session.batch`, it is
 * recomputed at most once, after all its sources, and emits at most once (never when the new
 * value `equals` the previous one, `Object.is` by default). Values are deep-frozen like slice
 * items when the session freezes items (`createSession({ freeze })`, on outside production):
 * arrays and plain objects all the way down, except what is frozen already (items, other
 * computed values) and the read-only arrays slices hand out; `Map`/`Set` contents are not
 * frozen. For a long log, {@link defineComputed.incremental} folds only the appended items.
 * @param name - Used in errors and devtools.
 * @param sources - Slices (their items are passed as `readonly T[]`) or computed slices (their value).
 * @param project - Pure function of the sources' values, in order. Must not dispatch or throw;
 * a throw is reported on `session.errors$` as a {@link ComputedError} and the previous value is kept.
 * @throws {@link InvalidComputedError} when the name is empty or a source is
 * neither a slice nor a computed slice.
 * @example
 * ```ts
 * const Done = defineComputed('done', [Steps], (steps) => steps.filter((s) => s.done).length);
 * const Progress = defineComputed('progress', [Steps, Done], (steps, done) => (steps.length ? done / steps.length : 0));
 * computed(session, Progress).value$.subscribe(console.log); // Logs: 0, then once per event that changes it
 * ```
 */
export function defineComputed<const TName extends string, const TSources extends readonly ComputedSource[], TValue>(
  name: TName,
  sources: TSources,
  project: (...values: SourceValues<TSources>) => TValue,
  options: ComputedOptions<TValue> = {},
): ComputedDef<TName, TValue> {
  checkComputedDeclaration(name, sources);
  return declare(name, sources, project as (...values: any[]) => TValue, options.equals ?? Object.is, undefined);
}

function declare<TName extends string, TValue>(
  name: TName,
  sources: readonly ComputedSource[],
  project: (...values: any[]) => TValue,
  equals: (previous: TValue, next: TValue) => boolean,
  incremental: IncrementalFold<TValue> | undefined,
): ComputedDef<TName, TValue> {
  const def: ComputedDef<TName, TValue> = Object.freeze({
    kind: 'computed',
    name,
    sources: Object.freeze([...sources]),
    project,
    equals,
    ...(incremental === undefined ? {} : { incremental }),
    Value: undefined as TValue,
    [NOT_A_SLICE]: (operation: string) => new ComputedReadOnlyError(name, operation),
    [ATTACH]: (session: CoreStore) => computed(session, def),
  });
  return def;
}

/**
 * Declares an incremental computed slice over one slice (typically a log): instead of deriving
 * the value from every item on each change, it folds only the items appended since its last
 * value, so an index over a long log costs O(appended) per change, not O(n) (Proposal 1 of
 * the seed, "O(n) to O(1)"; docs/ARCHITECTURE.md "Computed slices").
 *
 * @remarks Lazy, memoized on the slice's version and glitch-free like {@link defineComputed}.
 * When the slice only had items appended since the last value (one event or many, e.g. a
 * batch), the new value is `fold(value, appendedItems)`: each appended item is folded exactly
 * once. After anything else, a `replace` (reducers such as `replaceLatest` and `upsertBy`
 * replace), a `clear`, an eviction by the slice's window (every append to a full `count`
 * window evicts), a seed, a reset or a restore, and after `invalidate()` or a throwing `fold`,
 * the value is recomputed from scratch: `fold(init(), allItems)`. So the value always equals
 * the from-scratch fold of the slice's items, provided `fold` folds a list like its parts
 * (`fold(fold(v, a), b)` equals `fold(v, [...a, ...b])`). The storage tells appends apart
 * (`SliceStorage.appendedOnlySince`); a storage that cannot tell makes every change a
 * recomputation. Values are deep-frozen when the session freezes items, so `fold` must return
 * a new value (sharing the previous one's parts costs nothing: frozen parts are skipped). A
 * value kept because `equals` said it equals the new one is what the next `fold` receives.
 * A throwing `fold` or `init` is reported on `session.errors$` as a {@link ComputedError} and the
 * previous value is kept.
 * @param source - The slice whose items are folded (a slice, not a computed slice).
 * @throws {@link InvalidComputedError} when the name is empty, `source` is not a slice, or
 * `init`/`fold` is not a function.
 * @example
 * ```ts
 * const Totals = defineComputed.incremental('totals', Orders, {
 *   init: () => ({ count: 0, amount: 0 }),
 *   fold: (t, orders) => ({ count: t.count + orders.length, amount: orders.reduce((a, o) => a + o.amount, t.amount) }),
 * });
 * session.computed(Totals).value$.subscribe(console.log); // Logs: { count: 0, amount: 0 }
 * session.dispatch(OrderPlaced({ amount: 5 }));           // Logs: { count: 1, amount: 5 } (folded 1 order)
 * ```
 */
defineComputed.incremental = function incremental<const TName extends string, TItem, TValue>(
  name: TName,
  source: SliceDef<string, TItem>,
  options: IncrementalOptions<TItem, TValue>,
): ComputedDef<TName, TValue> {
  checkComputedDeclaration(name, [source]);
  if (isComputedDef(source)) {
    throw new InvalidComputedError(name, !DEV ? codedMessage('E32', 'computed source') : 'an incremental computed slice folds the items appended to a slice; its source is a computed slice. Use defineComputed for values derived from computed slices.');
  }
  const { init, fold } = (options ?? {}) as Partial<IncrementalOptions<TItem, TValue>>;
  if (typeof init !== 'function' || typeof fold !== 'function') {
    throw new InvalidComputedError(name, !DEV ? codedMessage('E33', 'init/fold') : 'pass { init: () => value, fold: (value, appendedItems) => value }.');
  }
  const fromScratch = (items: readonly TItem[]): TValue => fold(init(), items);
  return declare(name, [source], fromScratch as (...values: any[]) => TValue, options.equals ?? Object.is, { init, fold });
};
